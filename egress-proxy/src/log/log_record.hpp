// One egress log line (contracts/egress-log.schema.json) and its JSON form.
// Pure: the record holds names and counts only, never header values, query
// strings, bodies or MCP arguments.
#pragma once

#include "osf/log_fields.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace osf::log {

using osf::ErrorKind;
using osf::Outcome;
using osf::RefusalReason;

struct LogRecord {
    std::chrono::system_clock::time_point time;
    std::uint64_t connection = 0;
    std::string client; // "ip:port"
    std::string host;
    std::uint16_t port = 0;
    std::string scheme = "https"; // "tcp": a raw tunnel's line
    std::string via;              // "connect" | "socks5": how a tunnel came in; empty: not written
    bool http2 = false;           // an HTTP/2 stream
    std::string method;
    std::string path; // the query string is cut off by the serialiser, whatever it is given
    Outcome outcome = Outcome::error;
    int status = 0;
    std::optional<RefusalReason> refused_by; // refused only (unset: bad-request)
    std::optional<ErrorKind> error;          // error only (unset: aborted)
    std::string mcp_server;
    std::string tool;
    std::string mcp_method; // the JSON-RPC methods of an MCP request, comma-separated
    std::vector<std::string> secrets;
    std::string upgrade;
    std::uint64_t bytes_up = 0;
    std::uint64_t bytes_down = 0;
    double duration_ms = 0;
    std::int64_t mcp_events_dropped = -1; // < 0: not an MCP stream
    std::int64_t tools_removed = -1;
    std::string rule;                          // the egress rule that decided, on a host with rules
    int rule_index = -1;                       // its index in the entry's rules; < 0: not written
    std::optional<RefusalReason> would_refuse; // audit mode: the refusal not made
    std::uint64_t policy = 0; // the admitting policy's generation; 0: the spec's (not written)
    // The request (or a part of it) was handed to an upstream connection: the
    // exchange reached an origin, so its line is never folded. Not written.
    bool reached_upstream = false;
    // A folded line (log/refusal_folding.hpp): how many requests it stands
    // for, and the time of the first; 0 on a line for one request.
    std::uint64_t count = 0;
    std::optional<std::chrono::system_clock::time_point> since;
};

// Fields a client controls are cut to these many bytes in a line, ending in
// cut_marker when cut (contracts/egress-log.schema.json's maxLength).
inline constexpr std::size_t max_host_bytes = 1024;
inline constexpr std::size_t max_method_bytes = 64;
inline constexpr std::size_t max_path_bytes = 2048;
inline constexpr std::size_t max_tool_bytes = 1024;
inline constexpr std::size_t max_mcp_method_bytes = 1024;
inline constexpr std::string_view cut_marker = "[cut]";

// "2026-11-29T18:46:12.123Z"
std::string format_time(std::chrono::system_clock::time_point t);

// The record as one JSON line, with the trailing '\n'.
std::string to_json_line(const LogRecord& record);

} // namespace osf::log
