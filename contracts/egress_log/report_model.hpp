// What the reviewer's HTML report of an egress log shows, counted from the
// log's bytes and the verifier's report: the tables of `log summary` with the
// log lines each row counts, requests per host in time buckets, policy
// changes, lines of kinds the report does not know, and the lines the rows
// link to. Pure; bounded by ReportLimits whatever the log holds (a log whose
// every line names a new host included). Names are kept as logged: escaping
// is the page's (report_page.hpp).
#pragma once

#include "egress_log/log_summary.hpp"
#include "egress_log/log_verifier.hpp"
#include "egress_log/report_time.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace osf::egress_log {

// What keeps the page small (docs/egress-log-for-reviewers.md states the
// bound these give). Rows beyond a table's limit are counted in one line.
struct ReportLimits {
    std::size_t table_rows = 100;       // per table, biggest first
    std::size_t ranges_per_row = 8;     // line ranges a row names (the first ones)
    std::size_t timeline_lanes = 12;    // hosts with a lane of their own; the rest share one
    std::size_t timeline_buckets = 120; // time buckets across the timeline
    std::size_t policy_changes = 50;    // listed and marked
    std::size_t names_per_line = 10;    // entries of a policy change, secrets of a shown line
    std::size_t other_kinds = 20;       // kinds of line the report does not know
    std::size_t shown_lines = 500;      // log lines reproduced at the end for the rows' links
    std::size_t lines_per_range = 5;    // of each range named by a row, at most
};

// The log lines (1-based, as `verify` counts them) a row counts: its first
// ranges of consecutive lines, and how many lines in all.
struct LineRefs {
    struct Range {
        std::size_t first = 0, last = 0;
    };
    std::vector<Range> ranges;
    std::uint64_t lines = 0;
    void add(std::size_t line, std::size_t max_ranges);
};

struct HostRow {
    std::string host;
    egress_log::HostCounts counts;
    LineRefs lines;
};

// A refusal reason, an error or a secret, towards one host.
struct CountRow {
    std::string name, host;
    std::uint64_t count = 0;
    LineRefs lines;
};

// An MCP server's tool: tools/call forwarded and refused; the row with an
// empty tool counts the tools hidden from the server's tools/list answers.
struct ToolRow {
    std::string server, tool;
    std::uint64_t called = 0, refused = 0, hidden = 0;
    LineRefs lines;
};

template <class Row> struct ReportTable {
    std::vector<Row> rows;
    std::size_t rows_left_out = 0;
    std::uint64_t count_left_out = 0; // what the rows left out count
};

// A line of kind `policy` (a change of what the sandbox may reach, by allow
// or revoke), as report_model.cpp reads it.
struct PolicyChange {
    std::size_t line = 0;
    std::string time;
    std::optional<std::int64_t> at_ms;
    std::string change;               // "allow", "revoke", ... as logged
    std::vector<std::string> entries; // hosts, server:tool entries, or "secret NAME" (rotate)
    std::string by;                   // who asked, when logged
};

// A kind of line the report does not read (counted, linked, never guessed at).
struct KindRow {
    std::string kind;
    LineRefs lines;
};

struct TimelineBucket {
    std::uint64_t allowed = 0, refused = 0, errors = 0;
    std::uint64_t total() const { return allowed + refused + errors; }
};

struct TimelineLane {
    std::string host;
    bool other_hosts = false; // the lane of every host without its own
    std::vector<TimelineBucket> buckets;
    std::uint64_t requests = 0, refused = 0;
    std::uint64_t busiest = 0; // the largest bucket's total
};

struct Timeline {
    TimeBuckets buckets;
    std::vector<TimelineLane> lanes; // empty: no request has a readable time
    std::uint64_t untimed = 0;       // requests whose time is not RFC 3339 (not drawn)
    std::size_t hosts_in_other_lane = 0;
};

// A log line reproduced at the end of the page (rows link to it).
struct ShownLine {
    std::size_t number = 0;
    bool request = false; // a request line (its fields below), else `raw`
    std::string kind;     // of a line that is not a request line; "" when not JSON
    std::string time, method, host, path, outcome, reason, server, tool;
    std::vector<std::string> secrets;
    std::uint64_t port = 0, status = 0;
    std::string raw; // cut to max_raw_bytes
};

struct RunStart {
    std::size_t line = 0;
    std::string public_key; // base64, as the start line names it
};

struct ReportModel {
    std::string source; // the log's name in the verdict
    egress_log::VerifyReport verification;
    std::vector<RunStart> runs;
    std::string first_time, last_time; // of request lines
    std::uint64_t requests = 0, allowed = 0, refused = 0, errors = 0;
    ReportTable<HostRow> hosts;
    ReportTable<CountRow> refusals, failures, secrets;
    ReportTable<CountRow> rules; // "<rule>: <decision>" per host, for hosts with rules
    // Raw TCP tunnels: "port <p> via <way>: <outcome or reason>" per host.
    ReportTable<CountRow> tunnels;
    ReportTable<ToolRow> tools;
    std::vector<PolicyChange> policy;
    std::size_t policy_left_out = 0;
    std::vector<KindRow> other_kinds;
    std::size_t other_kinds_left_out = 0;
    LineRefs unreadable; // lines that are not JSON objects
    Timeline timeline;
    std::vector<ShownLine> shown_lines; // in line order
    ReportLimits limits;
};

inline constexpr std::size_t max_raw_bytes = 1024;

// The line kind a change of policy is logged as (allow/revoke while a
// sandbox runs); read from `change`, `entries` and `by` when they exist.
inline constexpr std::string_view policy_kind = "policy";

ReportModel build_report(std::string_view text, const egress_log::VerifyReport& verification,
                         std::string_view source, const ReportLimits& limits = {});

// The key that signed the last checkpoint (its run's start line names it,
// base64); empty when nothing is signed.
std::string signing_key(const ReportModel& model);

// True when line `number` is among model.shown_lines.
bool is_shown(const ReportModel& model, std::size_t number);

} // namespace osf::egress_log
