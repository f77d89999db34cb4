// URL paths in the form the proxy compares them. Pure.
#pragma once

#include <string>
#include <string_view>

namespace osf::policy {

// A request path reduced to what an upstream server would most likely route
// on: query and fragment dropped, percent-encoded unreserved characters
// decoded (other escapes upper-cased), "." and ".." segments resolved, runs of
// '/' collapsed, never empty. Used so that "/%6Dcp" or "/x/../mcp" cannot
// reach an MCP endpoint without being recognised as MCP traffic.
std::string normalize_path(std::string_view path);

// True when `path` is `prefix` or below it at a segment boundary: "/mcp"
// covers "/mcp", "/mcp/" and "/mcp/x" but not "/mcpx". Both are normalised
// first; ASCII case is ignored (some servers route case-insensitively, and
// mistaking a request for MCP traffic fails closed, the reverse fails open).
bool path_is_under(std::string_view path, std::string_view prefix);

} // namespace osf::policy
