// The timeline's SVG: a lane per host, refusals marked, policy changes drawn,
// and names of hosts that cannot close the <svg> or add an element to it.
#include "egress_log/report_timeline.hpp"
#include "report_test_lines.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace l = osf::egress_log;
using nlohmann::json;
using report_test::occurrences;

namespace {

std::string line(const std::string& host, const std::string& outcome, const std::string& time) {
    json j = {{"time", time}, {"host", host}, {"outcome", outcome}};
    if (outcome == "refused") j["refusedBy"] = "host-not-allowed";
    return j.dump() + "\n";
}

} // namespace

TEST_CASE("a lane per host, bars per bucket, a red mark for each bucket with a refusal") {
    std::string log;
    for (int i = 0; i < 50; ++i)
        log += line("busy.test", "allowed", "2026-11-29T18:00:00.000Z");
    log += line("busy.test", "refused", "2026-11-29T18:00:09.000Z");
    log += line("calm.test", "allowed", "2026-11-29T18:00:05.000Z");
    const auto svg = l::render_timeline_svg(l::build_report(log, {}, "x"));
    CHECK(svg.rfind("<svg ", 0) == 0);
    CHECK(occurrences(svg, "<svg") == 1);
    CHECK(occurrences(svg, "</svg>") == 1);
    CHECK(occurrences(svg, "<g class=\"lane\">") == 2);
    CHECK(svg.find(">busy.test</text>") < svg.find(">calm.test</text>")); // most requests first
    CHECK(svg.find("max 50") != std::string::npos);
    // The one refusal among 51 requests: its own bar, and the mark under it (height 3).
    CHECK(svg.find("1 request, 0 allowed, 1 refused, 0 failed") != std::string::npos);
    CHECK(occurrences(svg, "height=\"3.0\" fill=\"#c62828\"") == 1);
    CHECK(svg.find("2026-11-29 18:00:00 + 1 s: 50 requests") != std::string::npos);
    CHECK(svg.find("style=") == std::string::npos); // the CSP allows no style attribute
    CHECK(svg.find("<script") == std::string::npos);
    CHECK(l::render_timeline_svg(l::build_report("", {}, "x")).empty());
}

TEST_CASE("hosts that hold markup, quotes or escapes stay text inside the SVG") {
    const std::vector<std::string> hostile = {
        "</svg><script>alert(1)</script>", "\"><image href=x onerror=alert(1)>",
        "' onmouseover='alert(1)",         "evil\x1b[2J\x1b[1;1Hok.test",
        "\xe2\x80\xaemoc.elgoog", // right-to-left override
        std::string(3000, 'x') + ".test",
    };
    std::string log;
    for (const auto& host : hostile)
        log += line(host, "refused", "2026-11-29T18:00:00.000Z");
    const auto svg = l::render_timeline_svg(l::build_report(log, {}, "x"));
    CHECK(occurrences(svg, "</svg>") == 1);
    CHECK(occurrences(svg, "<svg") == 1);
    CHECK(svg.find("<script") == std::string::npos);
    CHECK(svg.find("<image") == std::string::npos);
    CHECK(svg.find("&lt;image href=x onerror=alert(1)&gt;") != std::string::npos); // text
    CHECK(svg.find('\x1b') == std::string::npos);
    CHECK(svg.find("\xe2\x80\xae") == std::string::npos);
    CHECK(svg.find("&lt;/svg&gt;&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
    CHECK(svg.find("\"\\u{202e}moc.elgoog\"") != std::string::npos);
    CHECK(svg.find("\"evil\\x1b[2J\\x1b[1;1Hok.test\"") != std::string::npos);
    // The long name is cut beside its lane and in its title.
    CHECK(svg.find(std::string(300, 'x')) == std::string::npos);
    CHECK(svg.find("(3005 bytes)") != std::string::npos);
}

TEST_CASE("policy changes are dashed lines across the lanes, numbered as in their table") {
    const std::string log = line("api.test", "allowed", "2026-11-29T18:00:00.000Z") +
                            json({{"time", "2026-11-29T18:00:30.000Z"},
                                  {"kind", "policy"},
                                  {"change", "allow"},
                                  {"entries", {"</svg>new.test"}}})
                                .dump() +
                            "\n" + json({{"kind", "policy"}, {"change", "revoke"}}).dump() +
                            "\n" + // no time: no line
                            line("api.test", "refused", "2026-11-29T18:01:00.000Z");
    const auto svg = l::render_timeline_svg(l::build_report(log, {}, "x"));
    CHECK(occurrences(svg, "<g class=\"policy\">") == 1);
    CHECK(svg.find(">P1</text>") != std::string::npos);
    CHECK(svg.find("line 2: policy change allow &lt;/svg&gt;new.test") != std::string::npos);
    CHECK(occurrences(svg, "</svg>") == 1);
}
