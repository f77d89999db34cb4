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
//
// Every reading an origin server may route on is tried, and a match in any
// of them counts: the path as written; with ";parameters" dropped; fully
// percent-decoded with '\\' taken as '/'; and that with trailing dots and
// spaces of each segment dropped (as Windows servers do: "/mcp." is "/mcp");
// and "//host/mcp" as a network-path reference (the path after "host").
bool path_is_under(std::string_view path, std::string_view prefix);

// Why a request path (the target up to '?') has no single reading that every
// origin server routes on, or empty when it has one: an encoded '/', '\\',
// '%' (decoded twice by some servers) or control character (NUL...), a raw
// '\\', a '#', a control character, or an empty segment ("//x/mcp" is host x's
// "/mcp" to WHATWG, Node and Python URL parsers). Such a path is refused on a host with
// an MCP endpoint, where guessing wrong would let MCP traffic pass unread.
std::string_view ambiguous_path(std::string_view path);

} // namespace osf::policy
