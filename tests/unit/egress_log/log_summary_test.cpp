// The text summary shows names from the log (which the sandbox chooses: hosts,
// paths, tool names) so that none can draw a row, a tool or a host of its own.
#include "egress_log/log_summary.hpp"

#include <catch2/catch.hpp>
#include <string>

namespace el = osf::egress_log;

TEST_CASE("names from the log are shown bare only when they are plain printable ASCII") {
    struct Row {
        std::string name, shown;
    };
    const Row rows[] = {
        {"api.example.com", "api.example.com"},
        {"delete_page", "delete_page"},
        {"[2001:db8::1]", "[2001:db8::1]"},
        {"xn--bcher-kva.example", "xn--bcher-kva.example"},
        {"", "\"\""},
        {"evil\n  wiki: search called 9", "\"evil\\x0a  wiki: search called 9\""},
        {"a\r\x1b[2Kb", "\"a\\x0d\\x1b[2Kb\""},
        {std::string("nul\0x", 5), "\"nul\\x00x\""},
        {"del\x7f", "\"del\\x7f\""},
        {"evil called 99; search", "\"evil called 99; search\""},
        {"x;y", "\"x;y\""},
        {"quote\"back\\slash", "\"quote\\\"back\\\\slash\""},
        {"(no host)", "\"(no host)\""},
        {"\xe2\x80\xaetset.ipa", "\"\\u{202e}tset.ipa\""},                 // right-to-left override
        {"api.example.com\xe2\x80\xa8x", "\"api.example.com\\u{2028}x\""}, // line separator
        {"\xd0\xb0pi.example.com", "\"\\u{430}pi.example.com\""},          // Cyrillic a
        {"\xc2\x85next", "\"\\u{85}next\""},                               // C1 next line
        {"bad\xff\xfeutf8", "\"bad\\u{ff}\\u{fe}utf8\""},
        {"\xf0\x9f\x98\x80", "\"\\u{1f600}\""},
    };
    for (const auto& row : rows) {
        INFO(row.name);
        CHECK(el::display_label(row.name) == row.shown);
    }
}

TEST_CASE("a tool name cannot add a line or a tool to the text summary") {
    const std::string log =
        R"({"time":"2026-01-01T00:00:00.000Z","host":"wiki.test","outcome":"refused","refusedBy":"mcp-tool","mcpServer":"wiki","tool":"x\n  wiki: search called 7"})"
        "\n"
        R"({"time":"2026-01-01T00:00:00.000Z","host":"wiki.test","outcome":"refused","refusedBy":"mcp-tool","mcpServer":"wiki","tool":"y called 3; search"})"
        "\n";
    const auto text = el::render_text(el::summarise_log(log, {}));
    CHECK(text.find("\n  wiki: search") == std::string::npos); // no line of its own
    CHECK(text.find("\"x\\x0a  wiki: search called 7\" REFUSED 1") != std::string::npos);
    CHECK(text.find("\"y called 3; search\" REFUSED 1") != std::string::npos);
}

TEST_CASE("policy changes are listed with the requests before them and those they admitted") {
    const std::string log =
        R"({"time":"2026-01-01T00:00:00.000Z","host":"api.test","outcome":"allowed","bytesUp":1,"bytesDown":2})"
        "\n"
        R"({"time":"2026-01-01T00:00:01.000Z","host":"new.test","outcome":"refused","refusedBy":"host-not-allowed"})"
        "\n"
        R"({"time":"2026-01-01T00:00:02.000Z","kind":"policy","change":"allow","entries":["new.test","*.cdn.test"],"tools":["wiki:edit"],"by":"ops@box","generation":1})"
        "\n"
        R"({"time":"2026-01-01T00:00:03.000Z","host":"new.test","outcome":"allowed","policy":1})"
        "\n"
        R"({"time":"2026-01-01T00:00:04.000Z","host":"new.test","outcome":"allowed","policy":1,"count":2,"since":"2026-01-01T00:00:03.500Z"})"
        "\n"
        R"({"time":"2026-01-01T00:00:05.000Z","kind":"policy","change":"revoke","entries":["new.test"],"by":"ops@box","generation":2})"
        "\n"
        R"({"time":"2026-01-01T00:00:06.000Z","host":"new.test","outcome":"refused","refusedBy":"host-not-allowed","policy":2})"
        "\n";
    const auto summary = el::summarise_log(log, {});
    CHECK(summary.requests == 6);
    REQUIRE(summary.policy_changes.size() == 2);
    const auto& allow = summary.policy_changes[0];
    CHECK(allow.line == 3);
    CHECK(allow.change == "allow");
    CHECK(allow.entries == std::vector<std::string>{"new.test", "*.cdn.test"});
    CHECK(allow.tools == std::vector<std::string>{"wiki:edit"});
    CHECK(allow.by == "ops@box");
    CHECK(allow.requests_before == 2);
    CHECK(allow.allowed_under == 3); // a folded line counts whole
    CHECK(summary.policy_changes[1].requests_before == 5);
    CHECK(summary.policy_changes[1].allowed_under == 0);
    const auto text = el::render_text(summary);
    CHECK(text.find("line 3  2026-01-01T00:00:02.000Z  allow by ops@box: new.test *.cdn.test tool "
                    "wiki:edit (after 2 requests; policy 1 then admitted 3 allowed requests)") !=
          std::string::npos);
    const auto json = el::render_json(summary);
    CHECK(json["policyChanges"].size() == 2);
    CHECK(json["policyChanges"][1]["change"] == "revoke");
    CHECK(
        el::render_text(el::summarise_log(
                            R"({"time":"2026-01-01T00:00:00.000Z","host":"a","outcome":"allowed"})"
                            "\n",
                            {}))
            .find("policy changes: none") != std::string::npos);
}

TEST_CASE("raw TCP tunnels are counted per destination, with their ways in") {
    const std::string log =
        R"({"time":"2026-12-07T09:00:01.000Z","host":"github.com","port":22,"scheme":"tcp","via":"connect","method":"CONNECT","outcome":"allowed","status":200,"bytesUp":10,"bytesDown":2000})"
        "\n"
        R"({"time":"2026-12-07T09:00:02.000Z","host":"github.com","port":22,"scheme":"tcp","via":"socks5","method":"CONNECT","outcome":"error","error":"policy-revoked","status":0,"bytesUp":5,"bytesDown":7})"
        "\n"
        R"({"time":"2026-12-07T09:00:03.000Z","host":"evil.test","port":22,"scheme":"tcp","via":"socks5","method":"CONNECT","outcome":"refused","refusedBy":"tcp-destination-not-allowed","status":0,"bytesUp":0,"bytesDown":0,"count":4,"since":"2026-12-07T09:00:02.500Z"})"
        "\n"
        R"({"time":"2026-12-07T09:00:04.000Z","host":"api.test","port":443,"scheme":"https","method":"GET","outcome":"allowed","status":200,"bytesUp":0,"bytesDown":1})"
        "\n";
    const auto s = el::summarise_log(log, {});
    REQUIRE(s.tcp.size() == 2);
    const auto& git = s.tcp.at("github.com:22");
    CHECK(git.tunnels == 2);
    CHECK(git.allowed == 1);
    CHECK(git.errors == 1);
    CHECK(git.bytes_up == 15);
    CHECK(git.bytes_down == 2007);
    CHECK(git.via == std::map<std::string, std::uint64_t>{{"connect", 1}, {"socks5", 1}});
    CHECK(s.tcp.at("evil.test:22").refused == 4); // a folded line counts whole
    const auto text = el::render_text(s);
    CHECK(text.find("tcp tunnels:") != std::string::npos);
    CHECK(text.find("github.com:22 (connect 1, socks5 1)") != std::string::npos);
    const auto json = el::render_json(s);
    REQUIRE(json["tcpTunnels"].size() == 2);
    CHECK(json["tcpTunnels"][1]["destination"] == "github.com:22");
    CHECK(json["tcpTunnels"][1]["via"]["socks5"] == 1);
}
