// The egress log's policy line (kind "policy"): a change of what the sandbox
// may reach while it runs, in the hash chain like a request line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace osf::log {

struct PolicyRecord {
    std::string_view change;            // "allow" or "revoke"
    std::vector<std::string> entries;   // egress entries added or removed
    std::vector<std::string> tools;     // "server:tool"s added or removed
    std::string by;                     // who asked
    std::uint64_t generation = 0;       // the policy's number from this line on
    std::optional<std::uint64_t> ended; // revoke: open tunnels and WebSockets it ended
    std::string secret;                 // rotate: the secret's name
};

// One line without its chain field (EgressLogWriter::write adds it).
std::string policy_line(const PolicyRecord& record, std::string_view time);

} // namespace osf::log
