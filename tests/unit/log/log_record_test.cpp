// The egress log line: every line is one valid JSON object with the fields in
// a fixed order, whatever bytes a request carried; no query string is written.
#include "log/json_line_writer.hpp"
#include "log/log_record.hpp"

#include <catch2/catch.hpp>
#include <ctime>
#include <nlohmann/json.hpp>
#include <random>

using namespace osf::log;
using nlohmann::ordered_json;

namespace {

LogRecord sample() {
    LogRecord r;
    r.time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1796064372123));
    r.connection = 42;
    r.client = "127.0.0.1:5555";
    r.host = "api.example.com";
    r.port = 443;
    r.method = "POST";
    r.path = "/v1/items?token=SECRET#frag";
    r.outcome = Outcome::allowed;
    r.status = 201;
    r.bytes_up = 12;
    r.bytes_down = 3456;
    r.duration_ms = 1.23456;
    return r;
}

ordered_json parse_line(const std::string& line) {
    REQUIRE(!line.empty());
    REQUIRE(line.back() == '\n');
    REQUIRE(line.find('\n') == line.size() - 1); // one line
    return ordered_json::parse(line);            // throws on invalid JSON or UTF-8
}

std::string reference_time(std::int64_t ms) {
    const std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<int>(ms % 1000));
    return buf;
}

} // namespace

TEST_CASE("a log line holds the record's fields in a fixed order and no query string") {
    const auto j = parse_line(to_json_line(sample()));
    std::vector<std::string> keys;
    for (auto it = j.begin(); it != j.end(); ++it)
        keys.push_back(it.key());
    CHECK(keys == std::vector<std::string>{"time", "connection", "client", "host", "port", "scheme",
                                           "method", "path", "outcome", "status", "bytesUp",
                                           "bytesDown", "durationMs"});
    CHECK(j["time"] == "2026-11-30T18:46:12.123Z"); // date -u -d @1796064372
    CHECK(j["connection"] == 42);
    CHECK(j["client"] == "127.0.0.1:5555");
    CHECK(j["port"] == 443);
    CHECK(j["scheme"] == "https");
    CHECK(j["path"] == "/v1/items");
    CHECK(j["outcome"] == "allowed");
    CHECK(j["status"] == 201);
    CHECK(j["bytesDown"] == 3456);
    CHECK(j["durationMs"].get<double>() == Approx(1.234));
    CHECK(to_json_line(sample()).find("SECRET") == std::string::npos);
}

TEST_CASE("optional fields appear only when they say something") {
    auto r = sample();
    r.outcome = Outcome::refused;
    auto j = parse_line(to_json_line(r));
    CHECK(j["refusedBy"] == "bad-request");
    CHECK_FALSE(j.contains("error"));
    CHECK_FALSE(j.contains("mcpEventsDropped"));

    r.outcome = Outcome::error;
    r.mcp_server = "github";
    r.tool = "create_issue";
    r.mcp_method = "tools/call,resources/read";
    r.secrets = {"GITHUB_TOKEN", "NPM \"TOKEN\""};
    r.upgrade = "websocket";
    r.mcp_events_dropped = 0;
    r.tools_removed = 7;
    j = parse_line(to_json_line(r));
    CHECK(j["error"] == "aborted"); // an error of no recorded kind
    CHECK_FALSE(j.contains("refusedBy"));
    CHECK(j["mcpServer"] == "github");
    CHECK(j["tool"] == "create_issue");
    CHECK(j["mcpMethod"] == "tools/call,resources/read");
    CHECK(j["secrets"] == ordered_json::array({"GITHUB_TOKEN", "NPM \"TOKEN\""}));
    CHECK(j["upgrade"] == "websocket");
    CHECK(j["mcpEventsDropped"] == 0);
    CHECK(j["toolsRemoved"] == 7);
}

TEST_CASE("strings are escaped so any bytes read back as they were") {
    std::string all_ascii;
    for (int c = 0; c < 0x80; ++c)
        all_ascii.push_back(static_cast<char>(c));
    auto r = sample();
    r.path = "/a\"b\\c/" + all_ascii;
    r.path.erase(r.path.find_first_of("?#")); // the line cuts there anyway
    r.method = "G\tE\nT\r";
    const auto line = to_json_line(r);
    const auto j = parse_line(line);
    CHECK(j["path"] == r.path);
    CHECK(j["method"] == r.method);
    CHECK(line.find("\\u0001") != std::string::npos);
    CHECK(line.find("\\n") != std::string::npos);
}

TEST_CASE("bytes that are not UTF-8 become U+FFFD and the line stays valid JSON") {
    const std::string fffd = "\xEF\xBF\xBD";
    struct Case {
        std::string in, out;
    };
    const std::vector<Case> cases = {
        {"/ok-\xC3\xA9-\xE2\x82\xAC-\xF0\x9D\x84\x9E",
         "/ok-\xC3\xA9-\xE2\x82\xAC-\xF0\x9D\x84\x9E"},
        {"/\xFF", "/" + fffd},
        {"/\xE2\x82", "/" + fffd + fffd},                       // truncated
        {"/\xC0\xAF", "/" + fffd + fffd},                       // overlong
        {"/\xED\xA0\x80", "/" + fffd + fffd + fffd},            // a surrogate
        {"/\xF4\x90\x80\x80", "/" + fffd + fffd + fffd + fffd}, // above U+10FFFF
        {"/\x80x", "/" + fffd + "x"},
    };
    for (const auto& c : cases) {
        auto r = sample();
        r.path = c.in;
        const auto j = parse_line(to_json_line(r));
        CHECK(j["path"] == c.out);
    }
}

TEST_CASE("durations are numbers with a fraction, to the microsecond") {
    auto value_of = [](double ms) {
        std::string out;
        JsonLineWriter w(out);
        w.field("d", ms);
        w.finish();
        return out;
    };
    CHECK(value_of(5) == "{\"d\":5.0}\n");
    CHECK(value_of(0) == "{\"d\":0.0}\n");
    CHECK(value_of(0.125) == "{\"d\":0.125}\n");
    CHECK(value_of(12345678.5) == "{\"d\":12345678.5}\n");
    CHECK(value_of(std::nan("")) == "{\"d\":0.0}\n");
    auto r = sample();
    r.duration_ms = 2.9999999;
    CHECK(parse_line(to_json_line(r))["durationMs"].get<double>() == Approx(2.999));
}

TEST_CASE("times are UTC with milliseconds, as gmtime reads them") {
    using namespace std::chrono;
    CHECK(format_time(system_clock::time_point{}) == "1970-01-01T00:00:00.000Z");
    CHECK(format_time(system_clock::time_point(milliseconds(1709251199999))) ==
          "2024-02-29T23:59:59.999Z");
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<std::int64_t> any_ms(0, 9000000000000); // to 2255 (ns clock)
    for (int i = 0; i < 2000; ++i) {
        const auto ms = any_ms(rng);
        CHECK(format_time(system_clock::time_point(milliseconds(ms))) == reference_time(ms));
    }
}

TEST_CASE("fields a client controls are cut with a marker", "[log]") {
    LogRecord r = sample();
    r.path = "/" + std::string(5000, 'p');
    r.host = std::string(3000, 'h');
    r.method = std::string(100, 'M');
    r.tool = std::string(1100, 't') + "\xc3\xa9" + std::string(200'000, 't'); // é across the cut
    r.mcp_method = std::string(300, 'm') + "," + std::string(2000, 'n');
    r.outcome = Outcome::refused;
    r.refused_by = RefusalReason::mcp_tool;
    const auto line = ordered_json::parse(to_json_line(r));
    for (const auto& [field, max] :
         std::vector<std::pair<std::string, std::size_t>>{{"path", max_path_bytes},
                                                          {"host", max_host_bytes},
                                                          {"method", max_method_bytes},
                                                          {"tool", max_tool_bytes},
                                                          {"mcpMethod", max_mcp_method_bytes}}) {
        INFO(field);
        const auto value = line[field].get<std::string>();
        CHECK(value.size() <= max);
        CHECK(value.ends_with(cut_marker));
    }
    r.tool = std::string(1018, 't') + "\xc3\xa9" + std::string(10, 'x');
    const auto cut = ordered_json::parse(to_json_line(r))["tool"].get<std::string>();
    CHECK(cut == std::string(1018, 't') + std::string(cut_marker)); // never half a character
    r.tool = "search";
    CHECK(ordered_json::parse(to_json_line(r))["tool"] == "search");
}

TEST_CASE("a refused or failed line names its reason with the contract's spelling", "[log]") {
    auto r = sample();
    r.outcome = Outcome::refused;
    for (const auto reason : osf::all_refusal_reasons) {
        r.refused_by = reason;
        const auto j = parse_line(to_json_line(r));
        CHECK(j["outcome"] == "refused");
        CHECK(j["refusedBy"] == std::string(osf::to_string(reason)));
    }
    r.outcome = Outcome::error;
    for (const auto kind : osf::all_error_kinds) {
        r.error = kind;
        const auto j = parse_line(to_json_line(r));
        CHECK(j["error"] == std::string(osf::to_string(kind)));
        CHECK_FALSE(j.contains("refusedBy"));
    }
}

TEST_CASE("the egress rule that decided: name, index, and what audit let through") {
    auto r = sample();
    auto j = parse_line(to_json_line(r));
    CHECK_FALSE(j.contains("rule"));
    CHECK_FALSE(j.contains("ruleIndex"));
    CHECK_FALSE(j.contains("wouldRefuse"));
    r.rule = "read-widgets";
    r.rule_index = 0;
    j = parse_line(to_json_line(r));
    CHECK(j["rule"] == "read-widgets");
    CHECK(j["ruleIndex"] == 0);
    r.rule = "api.example.com#none";
    r.rule_index = -1;
    r.would_refuse = osf::RefusalReason::path_not_allowed;
    j = parse_line(to_json_line(r));
    CHECK(j["rule"] == "api.example.com#none");
    CHECK_FALSE(j.contains("ruleIndex"));
    CHECK(j["wouldRefuse"] == "path-not-allowed");
    CHECK(j["outcome"] == "allowed");
    r.outcome = Outcome::refused;
    r.refused_by = osf::RefusalReason::method_not_allowed;
    r.would_refuse.reset();
    CHECK(parse_line(to_json_line(r))["refusedBy"] == "method-not-allowed");
}
