// An MCP server's `url` (the schema's url pattern): http or https, a host
// (no wildcard), an optional port, path and query; no user info, no fragment.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace osf::spec_detail {

inline constexpr std::size_t max_url_length = 2048;

struct McpEndpoint {
    std::string scheme; // "http" | "https"
    std::string host;   // lower case, no trailing dot
    std::uint16_t port; // explicit or the scheme's default
    std::string path;   // "/" at least; the query is not part of it
};

// The endpoint, or a message completing a sentence that starts with the URL.
std::variant<McpEndpoint, std::string> check_mcp_url(std::string_view url);

} // namespace osf::spec_detail
