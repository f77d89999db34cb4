// The reviewer's page: the verdict first in verify's words, no script and a
// policy that allows none, every name from the log text in its context, rows
// linking to their lines, and a size bound whatever the log holds.
#include "egress_log/log_chain.hpp"
#include "egress_log/log_verifier.hpp"
#include "egress_log/report_escaping.hpp"
#include "egress_log/report_page.hpp"
#include "report_test_lines.hpp"

#include <catch2/catch.hpp>
#include <cctype>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace l = osf::egress_log;
namespace el = osf::egress_log;
using nlohmann::json;
using report_test::log_of;
using report_test::occurrences;
using report_test::request;

namespace {

// Every element the page may hold; a name that became markup would add another.
const std::set<std::string> page_elements = {
    "!DOCTYPE", "html", "head",    "meta", "title", "style", "body", "header", "p", "pre",
    "code",     "main", "section", "h2",   "table", "tr",    "th",   "td",     "a", "em",
    "span",     "br",   "svg",     "g",    "rect",  "text",  "line", "footer"};

// The tags of the page, and any attribute whose name starts with "on" (an
// event handler), found by scanning for '<' as an HTML tokenizer would.
void check_markup(const std::string& page) {
    for (auto at = page.find('<'); at != std::string::npos; at = page.find('<', at + 1)) {
        std::size_t i = at + 1;
        if (i < page.size() && page[i] == '/') ++i;
        std::size_t end = i;
        while (end < page.size() &&
               (std::isalnum(static_cast<unsigned char>(page[end])) || page[end] == '!'))
            ++end;
        const std::string name = page.substr(i, end - i);
        INFO("element <" << name << "> at " << at);
        CHECK(page_elements.count(name) == 1);
        const auto close = page.find('>', at);
        REQUIRE(close != std::string::npos);
        static const std::regex handler(R"(\son[a-z]*\s*=)", std::regex::icase);
        CHECK_FALSE(std::regex_search(page.substr(at, close - at), handler));
    }
}

// The page's only non-ASCII characters are its own: an ellipsis, en and em dashes.
void check_ascii_but_own(const std::string& page) {
    for (std::size_t i = 0; i < page.size(); ++i) {
        const auto c = static_cast<unsigned char>(page[i]);
        if (c < 0x80) {
            CHECK((c >= 0x20 || c == '\n'));
            continue;
        }
        const std::string three = page.substr(i, 3);
        INFO("byte " << i);
        CHECK((three == "\xe2\x80\xa6" || three == "\xe2\x80\x93" || three == "\xe2\x80\x94"));
        i += 2;
    }
}

el::VerifyReport verified(std::size_t lines) {
    el::VerifyReport v;
    v.ok = true;
    v.lines = lines;
    v.runs = 1;
    v.checkpoints = 1;
    v.last_checkpoint = lines;
    v.trusted_key = true;
    v.ends_final = true;
    return v;
}

} // namespace

TEST_CASE("the verdict heads the page in the words of verify") {
    const std::string log = log_of({request("api.test"), request("evil.test", "refused")});
    struct Row {
        el::VerifyReport v;
        std::string word, css_class, line;
    };
    el::VerifyReport bad;
    bad.bad_line = 4;
    bad.problem = "line 4 does not follow line 3: line 3 was changed, or lines were removed";
    bad.lines = 9;
    el::VerifyReport self_named = verified(2);
    self_named.trusted_key = false;
    el::VerifyReport running = verified(2);
    running.ends_final = false;
    el::VerifyReport unsigned_tail = verified(2);
    unsigned_tail.last_checkpoint = 1;
    unsigned_tail.ends_final = false;
    const Row rows[] = {
        {verified(2), "VERIFIED", "ok",
         "signed through line 2 of 2 by the given key; ended by the proxy's final checkpoint"},
        {self_named, "VERIFIED", "warn",
         "signed through line 2 of 2 by the key the log's own start line names (not checked "
         "against a published key); ended by the proxy's final checkpoint"},
        {running, "VERIFIED", "ok",
         "signed through line 2 of 2 by the given key; not ended by a final checkpoint"},
        {unsigned_tail, "VERIFIED", "warn",
         "signed through line 1 of 2 by the given key; 1 unsigned line after it; not ended by a "
         "final checkpoint"},
        {bad, "NOT VERIFIED", "bad", "line 4: " + bad.problem},
    };
    for (const auto& row : rows) {
        INFO(row.line);
        const auto page = l::render_report_page(l::build_report(log, row.v, "saved.jsonl"));
        const auto header = page.substr(0, page.find("<main>"));
        CHECK(header.find("<header id=\"verdict\" class=\"verdict " + row.css_class + "\">") !=
              std::string::npos);
        CHECK(header.find("<p class=\"verdict-word\">" + row.word + "</p>") != std::string::npos);
        CHECK(header.find("<p class=\"verdict-line\">" + l::escape_text(row.line) + "</p>") !=
              std::string::npos);
        CHECK(header.find("<pre id=\"verify\">" +
                          l::escape_text(el::describe(row.v, "saved.jsonl")) + "</pre>") !=
              std::string::npos);
        CHECK(page.find("<title>" + row.word + ": egress log report of saved.jsonl</title>") !=
              std::string::npos);
    }
    // A real verification of a log that is not a log.
    const auto v = el::verify_log("", std::nullopt);
    const auto page = l::render_report_page(l::build_report("", v, "empty.jsonl"));
    CHECK(page.find("empty.jsonl: the log holds no whole line") != std::string::npos);
    CHECK(page.find("<p>No request has a readable time.</p>") != std::string::npos);
}

TEST_CASE("the page has no script, and its policy allows nothing but its own style sheet") {
    const auto page =
        l::render_report_page(l::build_report(log_of({request("api.test")}), verified(1), "x"));
    CHECK(page.rfind("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta http-equiv=\"Content-Security-Policy\" content=\"",
                     0) == 0);
    const auto csp = l::report_content_security_policy();
    CHECK(csp.rfind("default-src 'none'; style-src 'sha256-", 0) == 0);
    CHECK(csp.find("script-src") == std::string::npos); // default-src 'none' forbids scripts
    CHECK(page.find("content=\"" + l::escape_attribute(csp) + "\"") != std::string::npos);
    // The hash is the style sheet's, byte for byte.
    const auto from = page.find("<style>") + 7;
    const auto sheet = page.substr(from, page.find("</style>") - from);
    const auto digest = el::sha256(sheet);
    CHECK(csp.find("'sha256-" +
                   el::base64_encode(std::string_view(reinterpret_cast<const char*>(digest.data()),
                                                      digest.size())) +
                   "'") != std::string::npos);
    CHECK(occurrences(page, "<style>") == 1);
    CHECK(page.find("<script") == std::string::npos);
    CHECK(page.find("style=") == std::string::npos);
    CHECK(page.find("http://") == std::string::npos);  // nothing to fetch...
    CHECK(page.find("https://") == std::string::npos); // ...from anywhere
    CHECK(page.find("src=") == std::string::npos);
    check_markup(page);
}

TEST_CASE("names the sandbox chose are text wherever they land") {
    const std::string script = "<script>alert(1)</script>";
    const std::vector<std::string> names = {
        script,
        "\"><img src=x onerror=alert(1)>",
        "' onmouseover='alert(1)' x='",
        "</svg></td></tr></table><iframe src=javascript:alert(1)>",
        "evil\x1b[2J\x1b[1;1H\x1b]8;;http://x\x07ok",
        "\xe2\x80\xaemoc.elgoog\xe2\x80\xac",
        std::string("a\nb\rc\0d", 7),
        std::string(4000, 'L'),
        "&lt;b&gt;entity&#x3c;",
    };
    std::vector<json> lines;
    for (const auto& name : names) {
        json refused = request(name, "refused");
        refused["path"] = "/" + name;
        refused["method"] = name;
        refused["mcpServer"] = name;
        refused["tool"] = name;
        refused["refusedBy"] = name;
        refused["secrets"] = {name};
        lines.push_back(refused);
        json failed = request(name, "error");
        failed["error"] = name;
        lines.push_back(failed);
        lines.push_back({{"kind", name}, {"time", name}});
        lines.push_back({{"time", "2026-11-29T18:00:01.000Z"},
                         {"kind", "policy"},
                         {"change", name},
                         {"entries", {name}},
                         {"by", name}});
    }
    const auto page = l::render_report_page(l::build_report(log_of(lines), {}, script));
    CHECK(page.find("<script") == std::string::npos);
    CHECK(page.find("<img") == std::string::npos);
    CHECK(page.find("<iframe") == std::string::npos);
    CHECK(occurrences(page, "<svg") == 1);
    CHECK(occurrences(page, "</svg>") == 1);
    CHECK(occurrences(page, "</table>") == occurrences(page, "<table"));
    check_markup(page);
    check_ascii_but_own(page);
    // Shown as the text summary shows them, escaped for HTML.
    for (const auto& name : names) {
        INFO(name);
        CHECK(page.find(l::escape_text(l::shown_name(name, 512))) != std::string::npos);
    }
    CHECK(page.find("\"\\u{202e}moc.elgoog\\u{202c}\"") != std::string::npos);
    CHECK(page.find("\"evil\\x1b[2J\\x1b[1;1H\\x1b]8;;http://x\\x07ok\"") != std::string::npos);
    CHECK(page.find("&amp;lt;b&amp;gt;entity&amp;#x3c;") != std::string::npos);
    CHECK(page.find(std::string(1100, 'L')) ==
          std::string::npos); // names cut at 512, lines at 1024
    CHECK(page.find("(4000 bytes)") != std::string::npos);
    // The log's name too: it heads the verdict as verify would print it, escaped.
    CHECK(page.find("<pre id=\"verify\">&lt;script&gt;alert(1)&lt;/script&gt;: ") !=
          std::string::npos);
}

TEST_CASE("rows link to the lines they count, and those lines are at the end") {
    std::vector<json> lines = {request("api.test"), request("evil.test", "refused"),
                               request("api.test"), request("api.test")};
    const auto page = l::render_report_page(l::build_report(log_of(lines), verified(4), "x.jsonl"));
    CHECK(page.find("<a href=\"#L1\">1</a>, <a href=\"#L3\">3\xe2\x80\x93"
                    "4</a>") != std::string::npos);
    CHECK(page.find("<a href=\"#L2\">2</a>") != std::string::npos);
    for (const char* id : {"L1", "L2", "L3", "L4"})
        CHECK(page.find(std::string("<tr id=\"") + id + "\">") != std::string::npos);
    CHECK(page.find("<td class=\"refused\">refused 403 <code>host-not-allowed</code></td>") !=
          std::string::npos);
    // Lines beyond what is shown are named, not linked.
    l::ReportLimits limits;
    limits.shown_lines = 1;
    const auto few =
        l::render_report_page(l::build_report(log_of(lines), verified(4), "x", limits));
    CHECK(few.find("<a href=\"#L2\">2</a>") != std::string::npos);
    CHECK(few.find("<a href=\"#L1\">") == std::string::npos);
    CHECK(few.find("<td class=\"lines\">1, 3\xe2\x80\x93"
                   "4</td>") != std::string::npos);
}

// The bound docs/egress-log-for-reviewers.md states: whatever the log holds,
// the page stays under it. Every name here is as long as the log allows and
// made of the character whose escaping is longest ('&', five bytes), and
// there are more rows, lanes, policy changes and kinds than the page shows.
TEST_CASE("the page of a log built to be as large as possible stays under 8 MiB") {
    const std::string amp(1024, '&');
    const auto big = [&](int i) { return amp.substr(0, 1000) + std::to_string(i); };
    std::vector<json> lines;
    for (int i = 0; i < 160; ++i) {
        json refused = request(big(i), "refused");
        refused["path"] = "/" + std::string(2047, '&');
        refused["method"] = std::string(64, '&');
        refused["refusedBy"] = big(i);
        refused["mcpServer"] = big(i);
        refused["tool"] = big(i);
        refused["secrets"] = json::array();
        for (int s = 0; s < 12; ++s)
            refused["secrets"].push_back(big(s * 1000 + i));
        lines.push_back(refused);
        json failed = request(big(i), "error");
        failed["error"] = big(i);
        failed["mcpServer"] = big(i);
        failed["toolsRemoved"] = 1;
        lines.push_back(failed);
        json policy = {{"time", "2026-11-29T18:00:00.000Z"},
                       {"kind", "policy"},
                       {"change", big(i)},
                       {"by", big(i)},
                       {"entries", json::array()}};
        for (int e = 0; e < 12; ++e)
            policy["entries"].push_back(big(e));
        lines.push_back(policy);
        lines.push_back({{"kind", big(i)}, {"time", amp}});
    }
    const auto page = l::render_report_page(l::build_report(log_of(lines), {}, "x"));
    INFO("page bytes: " << page.size());
    CHECK(page.size() < 8u * 1024 * 1024);
    CHECK(page.find("more hosts") != std::string::npos); // the tables did leave rows out
    CHECK(page.find("more policy changes") != std::string::npos);
    check_markup(page);
}
