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
