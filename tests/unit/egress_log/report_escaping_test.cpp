// Names the sandbox chose, as the HTML report shows them: the text summary's
// display rule, then the escaping of the place they land in.
#include "egress_log/report_escaping.hpp"

#include <catch2/catch.hpp>
#include <string>

namespace l = osf::egress_log;

TEST_CASE("text and attribute escaping leave no markup, quote or entity of the input") {
    struct Row {
        std::string in, text, attribute;
    };
    const Row rows[] = {
        {"api.example.com", "api.example.com", "api.example.com"},
        {"<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;",
         "&lt;script&gt;alert(1)&lt;/script&gt;"},
        {"</svg><svg onload=x>", "&lt;/svg&gt;&lt;svg onload=x&gt;",
         "&lt;/svg&gt;&lt;svg onload=x&gt;"},
        {"\" onmouseover=\"x", "\" onmouseover=\"x", "&quot; onmouseover=&quot;x"},
        {"' onfocus='x", "' onfocus='x", "&#39; onfocus=&#39;x"},
        {"&amp;&lt;", "&amp;amp;&amp;lt;", "&amp;amp;&amp;lt;"},
        {"]]><!--", "]]&gt;&lt;!--", "]]&gt;&lt;!--"},
        {"", "", ""},
    };
    for (const auto& row : rows) {
        INFO(row.in);
        CHECK(l::escape_text(row.in) == row.text);
        CHECK(l::escape_attribute(row.in) == row.attribute);
    }
}

TEST_CASE("a shown name follows the summary's display rule and is cut without half an escape") {
    const std::string ellipsis = "\xe2\x80\xa6";
    struct Row {
        std::string name;
        std::size_t max;
        std::string shown;
    };
    const Row rows[] = {
        {"api.example.com", 64, "api.example.com"},
        {"<script>", 64, "<script>"}, // printable ASCII: bare (escaped for HTML later)
        {"a b", 64, "\"a b\""},
        {"x\x1b[2Ky", 64, "\"x\\x1b[2Ky\""},
        {"\xe2\x80\xaetset.ipa", 64, "\"\\u{202e}tset.ipa\""}, // right-to-left override
        {"abcdefghij", 4, "abcd" + ellipsis + " (10 bytes)"},
        // "\u{202e}" would be cut after 6 characters: the cut goes before it.
        {"ab\xe2\x80\xae", 6, "\"ab" + ellipsis + " (5 bytes)"},
        {"ab\xe2\x80\xae", 11, "\"ab\\u{202e}" + ellipsis + " (5 bytes)"},
        {"a\x01z", 4, "\"a" + ellipsis + " (3 bytes)"},
        {"a\"b", 3, "\"a" + ellipsis + " (3 bytes)"},
    };
    for (const auto& row : rows) {
        INFO(row.name << " max " << row.max);
        CHECK(l::shown_name(row.name, row.max) == row.shown);
    }
    const std::string long_name(5000, 'a');
    const auto shown = l::shown_name(long_name, 512);
    CHECK(shown == std::string(512, 'a') + ellipsis + " (5000 bytes)");
    CHECK(l::shown_host("", 64) == "(no host)");
    CHECK(l::shown_host("(no host)", 64) == "\"(no host)\""); // a host named so is quoted
}

TEST_CASE("a whole line is made visible with the summary's escapes, without its quotes") {
    struct Row {
        std::string line, shown;
    };
    const Row rows[] = {
        {R"({"kind":"start","x":"a\"b"})", R"({"kind":"start","x":"a\"b"})"},
        {"{\"host\":\"\xe2\x80\xae"
         "evil\"}",
         "{\"host\":\"\\u{202e}evil\"}"},
        {"raw\x1b[31mred\x7f", "raw\\x1b[31mred\\x7f"},
        {"tab\there", "tab\\x09here"},
        {"bad\xff\xfe", "bad\\u{ff}\\u{fe}"},
        {"\xf0\x9f\x98\x80!", "\\u{1f600}!"},
    };
    for (const auto& row : rows) {
        INFO(row.line);
        CHECK(l::visible_line(row.line, 1024) == row.shown);
    }
    CHECK(l::visible_line("abcdef", 3) == "abc\xe2\x80\xa6 (6 bytes)");
}

TEST_CASE("the log's name reads as verify prints it unless it is not printable ASCII") {
    CHECK(l::shown_source("egress log of 0123456789ab") == "egress log of 0123456789ab");
    CHECK(l::shown_source("/tmp/saved log.jsonl") == "/tmp/saved log.jsonl");
    CHECK(l::shown_source("/tmp/\xe2\x80\xaelog") == "\"/tmp/\\u{202e}log\"");
    CHECK(l::shown_source("a\nb") == "\"a\\x0ab\"");
}
