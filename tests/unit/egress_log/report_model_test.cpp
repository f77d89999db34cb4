// The report's model: the summary's counts, with the lines each row counts,
// time buckets per host, and kinds of line it does not know skipped safely.
#include "egress_log/log_summary.hpp"
#include "egress_log/report_model.hpp"
#include "report_test_lines.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace l = osf::egress_log;
namespace el = osf::egress_log;
using nlohmann::json;
using report_test::log_of;
using report_test::request;

namespace {

std::vector<std::pair<std::size_t, std::size_t>> ranges(const l::LineRefs& refs) {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    for (const auto& r : refs.ranges)
        out.emplace_back(r.first, r.last);
    return out;
}

const l::HostRow& host_row(const l::ReportModel& m, const std::string& host) {
    for (const auto& row : m.hosts.rows)
        if (row.host == host) return row;
    FAIL("no row for " << host);
    throw;
}

} // namespace

TEST_CASE("the report counts what log summary counts") {
    json secret = request("api.test");
    secret["secrets"] = {"API_TOKEN", "OTHER"};
    json tool = request("wiki.test");
    tool["mcpServer"] = "wiki";
    tool["tool"] = "search";
    json refused_tool = request("wiki.test", "refused");
    refused_tool["refusedBy"] = "mcp-tool";
    refused_tool["mcpServer"] = "wiki";
    refused_tool["tool"] = "delete";
    json listed = request("wiki.test");
    listed["mcpServer"] = "wiki";
    listed["toolsRemoved"] = 3;
    const std::string text = log_of({
        {{"time", "2026-11-29T17:59:59.000Z"}, {"kind", "start"}, {"publicKey", "K1"}},
        request("api.test"),
        secret,
        request("evil.test", "refused", "2026-11-29T18:00:05.000Z"),
        request("api.test", "error", "2026-11-29T18:00:09.000Z"),
        tool,
        refused_tool,
        listed,
        request(""),
        {{"kind", "checkpoint"}},
    });
    const auto m = l::build_report(text, {}, "x.jsonl");
    const auto s = el::summarise_log(text, {});
    CHECK(m.requests == s.requests);
    CHECK(m.allowed == s.allowed);
    CHECK(m.refused == s.refused);
    CHECK(m.errors == s.errors);
    CHECK(m.first_time == s.first_time);
    CHECK(m.last_time == s.last_time);
    REQUIRE(m.hosts.rows.size() == s.hosts.size());
    for (const auto& row : m.hosts.rows) {
        const auto& h = s.hosts.at(row.host);
        INFO(row.host);
        CHECK(row.counts.requests == h.requests);
        CHECK(row.counts.allowed == h.allowed);
        CHECK(row.counts.refused == h.refused);
        CHECK(row.counts.errors == h.errors);
        CHECK(row.counts.bytes_up == h.bytes_up);
        CHECK(row.counts.bytes_down == h.bytes_down);
        CHECK(row.lines.lines == h.requests);
    }
    const auto same = [](const l::ReportTable<l::CountRow>& table, const el::CountsByHost& by) {
        std::size_t rows = 0;
        for (const auto& [name, hosts] : by)
            for (const auto& [host, n] : hosts) {
                ++rows;
                bool found = false;
                for (const auto& row : table.rows)
                    if (row.name == name && row.host == host) found = row.count == n;
                CHECK(found);
            }
        CHECK(table.rows.size() == rows);
    };
    same(m.refusals, s.refusals);
    same(m.failures, s.failures);
    same(m.secrets, s.secrets);
    // MCP: per server and tool, and the tools hidden from tools/list.
    REQUIRE(m.tools.rows.size() == 3);
    for (const auto& row : m.tools.rows) {
        const auto& counts = s.mcp.at(row.server);
        if (row.tool.empty()) {
            CHECK(row.hidden == counts.tools_removed);
            CHECK(ranges(row.lines) == decltype(ranges(row.lines)){{8, 8}});
        } else {
            CHECK(row.called == (counts.called.count(row.tool) ? counts.called.at(row.tool) : 0));
            CHECK(row.refused ==
                  (counts.refused.count(row.tool) ? counts.refused.at(row.tool) : 0));
        }
    }
    CHECK(m.runs.size() == 1);
    CHECK(m.runs[0].line == 1);
    CHECK(m.runs[0].public_key == "K1");
    CHECK(m.other_kinds.empty());
    CHECK(m.unreadable.lines == 0);
}

TEST_CASE("each row names the lines it counts, as ranges, the first ones only") {
    std::vector<json> lines;
    for (int i = 0; i < 30; ++i)
        lines.push_back(request(i % 2 ? "odd.test" : "even.test"));
    lines.push_back(request("even.test"));
    lines.push_back(request("even.test"));
    l::ReportLimits limits;
    limits.ranges_per_row = 3;
    const auto m = l::build_report(log_of(lines), {}, "x", limits);
    const auto& even = host_row(m, "even.test");
    CHECK(ranges(even.lines) == decltype(ranges(even.lines)){{1, 1}, {3, 3}, {5, 5}});
    CHECK(even.lines.lines == 17);
    // A run of consecutive lines is one range.
    const auto runs =
        l::build_report(log_of({request("a"), request("a"), request("b"), request("a")}), {}, "x");
    CHECK(ranges(host_row(runs, "a").lines) == decltype(ranges(even.lines)){{1, 2}, {4, 4}});
    CHECK(ranges(host_row(runs, "b").lines) == decltype(ranges(even.lines)){{3, 3}});
}

TEST_CASE("tables keep their biggest rows and count the rows they leave out") {
    std::vector<json> lines;
    const std::vector<std::pair<std::string, int>> hosts = {
        {"one.test", 1}, {"five.test", 5}, {"three.test", 3}, {"two.test", 2}, {"four.test", 4}};
    for (const auto& [host, n] : hosts)
        for (int i = 0; i < n; ++i)
            lines.push_back(request(host, "refused"));
    l::ReportLimits limits;
    limits.table_rows = 2;
    const auto m = l::build_report(log_of(lines), {}, "x", limits);
    REQUIRE(m.hosts.rows.size() == 2);
    CHECK(m.hosts.rows[0].host == "five.test");
    CHECK(m.hosts.rows[1].host == "four.test");
    CHECK(m.hosts.rows_left_out == 3);
    CHECK(m.hosts.count_left_out == 6);
    REQUIRE(m.refusals.rows.size() == 2);
    CHECK(m.refusals.rows[0].host == "five.test");
    CHECK(m.refusals.rows[0].count == 5);
    CHECK(m.refusals.count_left_out == 6);
    CHECK(m.requests == 15); // the totals count every row
}

TEST_CASE("the timeline counts requests per host and bucket, the smallest hosts in one lane") {
    std::vector<json> lines = {
        request("busy.test", "allowed", "2026-11-29T18:00:00.000Z"),
        request("busy.test", "refused", "2026-11-29T18:00:00.500Z"),
        request("busy.test", "error", "2026-11-29T18:00:03.000Z"),
        request("calm.test", "allowed", "2026-11-29T18:00:03.999Z"),
        request("rare-a.test", "refused", "2026-11-29T18:00:01.000Z"),
        request("rare-b.test", "allowed", "2026-11-29T18:00:02.000Z"),
        request("calm.test", "allowed", "not a time"),
    };
    l::ReportLimits limits;
    limits.timeline_lanes = 2;
    const auto m = l::build_report(log_of(lines), {}, "x", limits);
    const auto& t = m.timeline;
    CHECK(t.buckets.width_ms == 1000);
    CHECK(t.buckets.count == 4);
    CHECK(t.untimed == 1);
    REQUIRE(t.lanes.size() == 3);
    CHECK(t.lanes[0].host == "busy.test");
    CHECK(t.lanes[1].host == "calm.test");
    CHECK(t.lanes[2].other_hosts);
    CHECK(t.hosts_in_other_lane == 2);
    CHECK(t.lanes[0].buckets[0].allowed == 1);
    CHECK(t.lanes[0].buckets[0].refused == 1);
    CHECK(t.lanes[0].buckets[3].errors == 1);
    CHECK(t.lanes[0].busiest == 2);
    CHECK(t.lanes[0].refused == 1);
    CHECK(t.lanes[1].requests == 1); // its untimed request is not drawn
    CHECK(t.lanes[1].buckets[3].allowed == 1);
    CHECK(t.lanes[2].buckets[1].refused == 1);
    CHECK(t.lanes[2].buckets[2].allowed == 1);
    CHECK(t.lanes[2].requests == 2);
    CHECK(l::build_report(log_of({request("x", "allowed", "")}), {}, "x").timeline.lanes.empty());
}

TEST_CASE("policy lines are read, unknown kinds and unreadable lines listed and counted nowhere") {
    const std::string text =
        log_of({
            request("api.test"),
            {{"time", "2026-11-29T18:00:01.000Z"},
             {"kind", "policy"},
             {"change", "allow"},
             {"entries", {"registry.npmjs.org", "*.example.com", 7}},
             {"by", "operator"}},
            {{"time", "2026-11-29T18:00:02.000Z"}, {"kind", "refusals"}, {"count", 900}},
            {{"kind", 42}},
            {{"kind", "refusals"}, {"count", 5}},
            {{"kind", "policy"}},
        }) +
        "not json\n[1,2]\n";
    const auto m = l::build_report(text, {}, "x");
    CHECK(m.requests == 1);
    REQUIRE(m.hosts.rows.size() == 1);
    REQUIRE(m.policy.size() == 2);
    CHECK(m.policy[0].line == 2);
    CHECK(m.policy[0].change == "allow");
    CHECK(m.policy[0].entries == std::vector<std::string>{"registry.npmjs.org", "*.example.com"});
    CHECK(m.policy[0].by == "operator");
    CHECK(m.policy[0].at_ms == l::parse_log_time("2026-11-29T18:00:01.000Z"));
    CHECK(m.policy[1].change.empty());
    CHECK_FALSE(m.policy[1].at_ms);
    REQUIRE(m.other_kinds.size() == 2);
    CHECK(m.other_kinds[0].kind == "42"); // a kind that is not a string, as JSON
    CHECK(ranges(m.other_kinds[0].lines) == decltype(ranges(m.other_kinds[0].lines)){{4, 4}});
    CHECK(m.other_kinds[1].kind == "refusals");
    CHECK(ranges(m.other_kinds[1].lines) ==
          decltype(ranges(m.other_kinds[1].lines)){{3, 3}, {5, 5}});
    CHECK(ranges(m.unreadable) == decltype(ranges(m.unreadable)){{7, 8}});
}

TEST_CASE("kinds of line the report does not know are bounded too") {
    std::vector<json> lines;
    for (int i = 0; i < 50; ++i)
        lines.push_back({{"kind", "kind-" + std::to_string(i)}});
    l::ReportLimits limits;
    limits.other_kinds = 4;
    const auto m = l::build_report(log_of(lines), {}, "x", limits);
    CHECK(m.other_kinds.size() == 4);
    CHECK(m.other_kinds_left_out == 46);
}

TEST_CASE("the lines shown at the end: policy and refusals first, bounded") {
    std::vector<json> lines;
    for (int i = 0; i < 20; ++i)
        lines.push_back(request("api.test"));
    lines.push_back(request("evil.test", "refused"));
    lines.push_back({{"kind", "policy"}, {"change", "revoke"}});
    json odd = request("odd.test");
    odd["secrets"] = json::array();
    for (int i = 0; i < 30; ++i)
        odd["secrets"].push_back("S" + std::to_string(i));
    lines.push_back(odd);
    l::ReportLimits limits;
    limits.shown_lines = 5;
    limits.lines_per_range = 2;
    const auto m = l::build_report(log_of(lines), {}, "x", limits);
    std::vector<std::size_t> shown;
    for (const auto& line : m.shown_lines)
        shown.push_back(line.number);
    // The policy line, the refusal, the secret's line, then api.test's first range (2 of 20).
    CHECK(shown == std::vector<std::size_t>{1, 2, 21, 22, 23});
    CHECK(l::is_shown(m, 21));
    CHECK_FALSE(l::is_shown(m, 3));
    const auto& refusal = m.shown_lines[2];
    CHECK(refusal.request);
    CHECK(refusal.host == "evil.test");
    CHECK(refusal.outcome == "refused");
    CHECK(refusal.reason == "host-not-allowed");
    CHECK(refusal.port == 443);
    const auto& policy = m.shown_lines[3];
    CHECK_FALSE(policy.request);
    CHECK(policy.kind == "policy");
    CHECK(policy.raw == lines[21].dump());
    CHECK(m.shown_lines[4].secrets.size() == limits.names_per_line);
}

TEST_CASE("the signing key is the one of the run whose checkpoint is the last") {
    const std::string text = log_of({
        {{"kind", "start"}, {"publicKey", "FIRST"}},
        {{"kind", "checkpoint"}},
        {{"kind", "start"}, {"publicKey", "SECOND"}},
        {{"kind", "checkpoint"}},
    });
    el::VerifyReport v;
    v.ok = true;
    v.last_checkpoint = 2;
    CHECK(l::signing_key(l::build_report(text, v, "x")) == "FIRST");
    v.last_checkpoint = 4;
    CHECK(l::signing_key(l::build_report(text, v, "x")) == "SECOND");
    v.last_checkpoint = 0;
    CHECK(l::signing_key(l::build_report(text, v, "x")).empty());
}

TEST_CASE("a rotate line names its secret among the policy changes, never a value") {
    const auto m = l::build_report(log_of({{{"time", "2026-11-29T18:00:01.000Z"},
                                            {"kind", "policy"},
                                            {"change", "rotate"},
                                            {"secret", "TG_TOKEN"},
                                            {"by", "ref:file"},
                                            {"generation", 0}}}),
                                   {}, "x");
    REQUIRE(m.policy.size() == 1);
    CHECK(m.policy[0].change == "rotate");
    CHECK(m.policy[0].entries == std::vector<std::string>{"secret TG_TOKEN"});
    CHECK(m.policy[0].by == "ref:file");
}

TEST_CASE("raw TCP tunnels get a table: port and way in, outcome or reason, per host") {
    const auto tunnel = [](const std::string& host, int port, const std::string& via,
                           const std::string& outcome, const std::string& why = "") {
        json line = request(host, outcome);
        line["scheme"] = "tcp";
        line["via"] = via;
        line["method"] = "CONNECT";
        line["port"] = port;
        line.erase("refusedBy");
        line.erase("error");
        if (outcome == "refused") line["refusedBy"] = why;
        if (outcome == "error") line["error"] = why;
        return line;
    };
    const auto m = l::build_report(
        log_of({tunnel("git.test", 22, "connect", "allowed"),
                tunnel("git.test", 22, "connect", "allowed"),
                tunnel("db.test", 5432, "socks5", "error", "idle-timeout"),
                tunnel("evil.test", 22, "socks5", "refused", "tcp-destination-not-allowed"),
                request("api.test")}),
        {}, "x");
    REQUIRE(m.tunnels.rows.size() == 3);
    CHECK(m.tunnels.rows[0].name == "port 22 via connect: allowed");
    CHECK(m.tunnels.rows[0].host == "git.test");
    CHECK(m.tunnels.rows[0].count == 2);
    CHECK(ranges(m.tunnels.rows[0].lines) ==
          std::vector<std::pair<std::size_t, std::size_t>>{{1, 2}});
    // Rows of one count: in the order of their names.
    CHECK(m.tunnels.rows[1].name == "port 22 via socks5: tcp-destination-not-allowed");
    CHECK(m.tunnels.rows[1].host == "evil.test");
    CHECK(m.tunnels.rows[2].name == "port 5432 via socks5: idle-timeout");
    CHECK(l::build_report(log_of({request("api.test")}), {}, "x").tunnels.rows.empty());
}
