// The host user and group ID a root-run local sandbox runs as: one of its own,
// from a range no account, group or subordinate-ID range of the machine uses,
// so that nothing inside is ever host root or the owner of a host file. uid
// and gid are the same number. An ordinary user's sandboxes run as that user
// (bubblewrap maps only the caller's own ID). Pure.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace osf::local {

inline constexpr unsigned kHostIdFirst = 0x77000000; // 1996488704
inline constexpr unsigned kHostIdCount = 65536;

// [first, first + count) ranges of /etc/subuid or /etc/subgid ("name:first:count" lines).
std::vector<std::pair<unsigned long long, unsigned long long>>
subordinate_ranges(const std::string& text);

// The lowest ID of the range that no sandbox holds (`used`) and that
// `belongs_to_someone` (an account, a group, a subordinate range) does not
// claim; nullopt when none is free.
std::optional<unsigned> choose_host_id(const std::set<unsigned>& used,
                                       const std::function<bool(unsigned)>& belongs_to_someone);

} // namespace osf::local
