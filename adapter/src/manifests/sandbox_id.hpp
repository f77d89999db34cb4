// Sandbox IDs: 12 hex digits, lower case in object names and labels.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace osf::manifests {

// The ID in lower case, or nullopt when `text` is not exactly 12 hex digits.
std::optional<std::string> normalize_sandbox_id(std::string_view text);

// Formats 6 random bytes as an ID.
std::string sandbox_id_from_bytes(const std::array<std::uint8_t, 6>& bytes);

} // namespace osf::manifests
