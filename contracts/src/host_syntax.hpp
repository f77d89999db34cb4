// The host grammar shared by `egress` entries and MCP URLs (the schema's
// egressEntry and url patterns spell the same rules as regular expressions).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace osf::spec_detail {

// The longest host name, without its trailing dot (RFC 1035's 253 characters).
inline constexpr std::size_t max_host_length = 253;
inline constexpr std::size_t max_label_length = 63;

struct HostProblem {
    std::string message; // completes `"<text>" ...`, e.g. "has an empty label"
};

// A host name, IPv4 address or (when allowed) "*.domain", lower-cased and
// without its trailing dot.
std::variant<std::string, HostProblem> check_host(std::string_view text, bool allow_wildcard);

// A port 1-65535 written without leading zeros.
std::variant<std::uint16_t, HostProblem> check_port(std::string_view text);

} // namespace osf::spec_detail
