#include "policy/url_path.hpp"

#include <catch2/catch.hpp>

using osf::policy::normalize_path;
using osf::policy::path_is_under;

TEST_CASE("normalize_path reduces a path to what a server routes on", "[path]") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"", "/"},
        {"/", "/"},
        {"/mcp", "/mcp"},
        {"/mcp/", "/mcp/"},
        {"/mcp?x=1", "/mcp"},
        {"/mcp#frag", "/mcp"},
        {"/%6dcp", "/mcp"},
        {"/%6Dcp", "/mcp"},
        {"/a%2fb", "/a%2Fb"},
        {"/a%2Fb", "/a%2Fb"},
        {"/a%zz", "/a%zz"},
        {"/a%", "/a%"},
        {"/a/./b", "/a/b"},
        {"/a/../b", "/b"},
        {"/../../b", "/b"},
        {"/a/b/..", "/a/"},
        {"/a/b/.", "/a/b/"},
        {"//a///b", "/a/b"},
        {"/%2e%2e/mcp", "/mcp"},
        {"mcp", "/mcp"},
    };
    for (const auto& [in, out] : cases) {
        INFO(in);
        CHECK(normalize_path(in) == out);
    }
}

TEST_CASE("path_is_under matches at segment boundaries", "[path]") {
    CHECK(path_is_under("/mcp", "/mcp"));
    CHECK(path_is_under("/mcp/", "/mcp"));
    CHECK(path_is_under("/mcp/x", "/mcp"));
    CHECK(path_is_under("/mcp?x", "/mcp"));
    CHECK(path_is_under("/mcp", "/mcp/"));
    CHECK(path_is_under("/anything", "/"));
    CHECK(path_is_under("", "/"));
    CHECK_FALSE(path_is_under("/mcpx", "/mcp"));
    CHECK_FALSE(path_is_under("/mc", "/mcp"));
    CHECK_FALSE(path_is_under("/", "/mcp"));
    CHECK_FALSE(path_is_under("/other/mcp", "/mcp"));
}

using osf::policy::ambiguous_path;

// Issue 14, class 6: spellings an origin server routes to /mcp are MCP traffic;
// spellings with no single reading are reported (and refused on MCP hosts).
TEST_CASE("spellings of an MCP path", "[path]") {
    struct Case {
        std::string path;
        bool ambiguous;
        bool under_mcp;
    };
    const std::vector<Case> cases = {
        {"/mcp", false, true},
        {"/MCP", false, true},
        {"/mcp.", false, true},
        {"/mcp..", false, true},
        {"/mcp%20", false, true},
        {"/mcp;x=1", false, true},
        {"/mcp;/x", false, true},
        {"/mcp%3b/", false, true},
        {"/%6dcp", false, true},
        {"/m%63p/", false, true},
        {"/x/../mcp", false, true},
        {"/x/%2e%2e/mcp", false, true},
        {"/./mcp", false, true},
        {"//mcp", true, true},
        {"/mcp/x", false, true},
        {"/mcp%2f", true, true},
        {"/mcp%2F", true, true},
        {"/x/..%2fmcp", true, true},
        {"/x%2f..%2fmcp", true, true},
        {"/mcp%5c", true, true},
        {"/mcp%5C", true, true},
        {"/mcp%00", true, true},
        {"/mcp%0a", true, false},
        {"/mcp%252f", true, false},
        {"/mcp\\", true, true},
        {"/x\\..\\mcp", true, true},
        {"/mcp#", true, true},
        {"/mcp%", true, false},
        {"/mcp%zz", true, false},
        {"/mcpx", false, false},
        {"/other", false, false},
        {"/other/mcp", false, false},
        {"/mc%70x", false, false},
        {"/a%20b/c", false, false},
        {"/x.y/z", false, false},
        // Issue 26, class 2: network-path references and empty segments, read by
        // WHATWG (Node's `new URL(target, base)`) and Python's urlsplit as host "x"
        // with path "/mcp" (tests/integration/test_bypass_mcp_targets.py checks the
        // readings against the real parsers).
        {"//x/mcp", true, true},
        {"//other.test/mcp", true, true},
        {"///mcp", true, true},
        {"////x/mcp", true, true},
        {"/.//x/mcp", true, false},
        {"//x/./mcp", true, true},
        {"//x:80/mcp", true, true},
        {"//@x/mcp", true, true},
        {"//x/MCP/", true, true},
        {"//x", true, false},
        {"/a//b", true, false},
        {"//x/other", true, false},
    };
    for (const auto& c : cases) {
        INFO(c.path);
        CHECK(ambiguous_path(c.path).empty() == !c.ambiguous);
        CHECK(path_is_under(c.path, "/mcp") == c.under_mcp);
    }
}
