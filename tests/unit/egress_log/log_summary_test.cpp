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
