// Sandbox IDs: 12 hex digits, lower case in object names and labels; and the
// snapshot names made from them.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace osf::sandbox {

// The ID in lower case, or nullopt when `text` is not exactly 12 hex digits.
std::optional<std::string> normalize_sandbox_id(std::string_view text);

// Formats 6 random bytes as an ID.
std::string sandbox_id_from_bytes(const std::array<std::uint8_t, 6>& bytes);

// A snapshot's name, the template a spec starts from (both CLIs print it).
inline std::string snapshot_name(const std::string& id, const std::string& stamp) {
    return "osf-snapshot-" + id + "-" + stamp;
}

} // namespace osf::sandbox
