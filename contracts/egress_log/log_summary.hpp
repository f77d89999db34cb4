// What a reviewer asks of an egress log first: hosts reached, refusals,
// secrets used, MCP tools, time range, and whether the chain verified. Pure:
// built from the log's bytes and the verifier's report.
#pragma once

#include "egress_log/log_verifier.hpp"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace osf::egress_log {

struct HostCounts {
    std::uint64_t requests = 0, allowed = 0, refused = 0, errors = 0;
    std::uint64_t bytes_up = 0, bytes_down = 0;
};

// Raw TCP tunnels to one destination (lines with scheme "tcp"), by how they came in.
struct TunnelCounts {
    std::uint64_t tunnels = 0, allowed = 0, refused = 0, errors = 0;
    std::uint64_t bytes_up = 0, bytes_down = 0;
    std::map<std::string, std::uint64_t> via; // "connect" | "socks5" -> count
};

struct McpServerCounts {
    std::map<std::string, std::uint64_t> called;  // tool -> tools/call forwarded
    std::map<std::string, std::uint64_t> refused; // tool -> tools/call refused
    std::uint64_t tools_removed = 0;              // from tools/list answers
};

// host -> count, per reason (or per secret).
using CountsByHost = std::map<std::string, std::map<std::string, std::uint64_t>>;

// A policy line (allow or revoke while the sandbox ran), with how many
// requests the log holds before it and how many the changed rules admitted.
struct PolicyChangeCounts {
    std::size_t line = 0;
    std::string time, change, by;
    std::vector<std::string> entries, tools;
    std::uint64_t generation = 0;
    std::uint64_t requests_before = 0; // request lines (folded ones counted whole) before it
    std::uint64_t allowed_under = 0;   // allowed requests whose `policy` is this generation
    std::string secret;                // a rotate line's secret (it changes no policy)
};

struct LogSummary {
    std::string first_time, last_time; // of request lines
    std::uint64_t requests = 0, allowed = 0, refused = 0, errors = 0;
    std::uint64_t unreadable_lines = 0;      // lines that are not JSON objects (not counted)
    std::map<std::string, HostCounts> hosts; // by host as logged
    CountsByHost refusals;                   // reason -> host -> count
    CountsByHost failures;                   // error -> host -> count
    CountsByHost secrets;                    // secret name -> host -> count
    // Egress rules (hosts with rules): rule -> decision ("allowed" or the
    // refusedBy reason) -> count.
    std::map<std::string, std::map<std::string, std::uint64_t>> rules;
    std::map<std::string, McpServerCounts> mcp;     // by server name
    std::map<std::string, TunnelCounts> tcp;        // by "host:port"
    std::vector<PolicyChangeCounts> policy_changes; // in line order
    VerifyReport verification;
};

// Counts request lines (lines without `kind`) and lists policy lines; start
// and checkpoint lines are the verifier's.
LogSummary summarise_log(std::string_view text, const VerifyReport& verification);

// A name from the log (host, tool, server, reason, secret) as the text summary
// shows it: bare when every byte is printable ASCII other than space, `"`, `\`
// and `;`; otherwise quoted, with `"` and `\` escaped, ASCII control bytes as
// `\xNN` and every non-ASCII character as `\u{X}`. The sandbox chooses hosts,
// paths and tool names: a line break, a terminal escape, a bidirectional
// override, a look-alike letter or a `;` in one must not draw a row or a tool
// of its own on a reviewer's screen.
std::string display_label(std::string_view name);

// For a terminal: aligned tables, biggest first (names through display_label).
std::string render_text(const LogSummary& summary);
// For tools: the same facts (contracts/README.md documents the members).
nlohmann::json render_json(const LogSummary& summary);

} // namespace osf::egress_log
