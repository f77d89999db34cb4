// The tightest spec a log suggests.
#include "egress_log/spec_suggestion.hpp"
#include "osf/spec.hpp"

#include <catch2/catch.hpp>

using osf::egress_log::SpecSuggestion;
using ojson = nlohmann::ordered_json;

namespace {

std::string line(const std::string& host, int port, const std::string& method,
                 const std::string& path, const std::string& outcome = "allowed",
                 const std::string& extra = "") {
    return R"({"time":"2026-12-07T06:00:00.000Z","connection":1,"client":"127.0.0.1:1","host":")" +
           host + R"(","port":)" + std::to_string(port) + R"(,"scheme":"https","method":")" +
           method + R"(","path":")" + path + R"(","outcome":")" + outcome + R"(","status":200)" +
           extra + "}";
}

} // namespace

TEST_CASE("suggest: paths generalised where a segment varies, exact elsewhere") {
    using V = std::vector<std::string>;
    CHECK(SpecSuggestion::generalise({"/repos/acme/widgets", "/repos/acme/widgets/pulls"}) ==
          V{"/repos/acme/widgets", "/repos/acme/widgets/pulls"});
    // Ids (two with digits) and three or more names vary.
    CHECK(SpecSuggestion::generalise({"/issues/1/comments", "/issues/22/comments"}) ==
          V{"/issues/*/comments"});
    CHECK(SpecSuggestion::generalise({"/repos/acme/a", "/repos/acme/b"}) ==
          V{"/repos/acme/a", "/repos/acme/b"});
    CHECK(SpecSuggestion::generalise({"/p/a/x", "/p/b/x", "/p/c/x", "/q"}) == V{"/p/*/x", "/q"});
    // What the grammar cannot hold is a segment wildcard.
    CHECK(SpecSuggestion::generalise({"/a%20b/c", "/"}) == V{"/", "/*/c"});
    // Past the bound, shorter prefixes.
    std::set<std::string> many;
    for (int i = 0; i < 10; ++i)
        many.insert("/a/n" + std::to_string(i) + "/x" + std::to_string(i));
    many.insert("/b");
    CHECK(SpecSuggestion::generalise(many, 2) == V{"/a/*", "/b"});
}

TEST_CASE("suggest: a spec that validates, from what went through only") {
    SpecSuggestion s;
    s.add(line("api.github.com", 443, "CONNECT", ""));
    s.add(line("api.github.com", 443, "GET", "/repos/acme/widgets"));
    s.add(line("api.github.com", 443, "GET", "/repos/acme/widgets/issues/1"));
    s.add(line("api.github.com", 443, "GET", "/repos/acme/widgets/issues/2"));
    s.add(line("api.github.com", 443, "POST", "/repos/acme/widgets/issues/2/comments"));
    s.add(line("api.github.com", 443, "DELETE", "/repos/acme/widgets", "refused",
               R"(,"refusedBy":"method-not-allowed")"));
    s.add(line("registry.npmjs.org", 443, "CONNECT", ""));
    s.add(line("git.example.com", 8443, "GET", "/x", "error", R"(,"error":"upstream-reset")"));
    s.add(line("wiki.example.com", 443, "POST", "/mcp", "allowed",
               R"(,"mcpServer":"wiki","tool":"search,read")"));
    s.add(R"({"kind":"checkpoint"})");
    s.add("not json");
    const auto spec = s.spec();
    CHECK(spec == ojson::parse(R"({"egress": [
        {"host": "api.github.com", "rules": [
            {"methods": ["GET"], "paths": ["/repos/acme/widgets", "/repos/acme/widgets/issues/*"],
             "allow": true},
            {"methods": ["POST"], "paths": ["/repos/acme/widgets/issues/2/comments"],
             "allow": true}]},
        {"host": "git.example.com:8443", "rules": [{"methods": ["GET"], "paths": ["/x"],
                                                     "allow": true}]},
        "registry.npmjs.org"],
        "mcp": [{"name": "wiki", "url": "https://wiki.example.com/mcp",
                 "tools": ["read", "search"]}]})"));
    const auto parsed = osf::parse_spec(spec.dump());
    INFO((parsed.ok() ? std::string() : parsed.errors.front().to_string()));
    CHECK(parsed.ok());
}

TEST_CASE("suggest: a tcp entry per raw tunnel and per SOCKS5 refusal for want of one") {
    SpecSuggestion s;
    auto tunnel = [](const std::string& host, int port, const std::string& outcome,
                     const std::string& extra) {
        return R"({"time":"2026-12-07T06:00:00.000Z","connection":1,"client":"127.0.0.1:1","host":")" +
               host + R"(","port":)" + std::to_string(port) +
               R"(,"scheme":"tcp","via":"socks5","method":"CONNECT","path":"","outcome":")" +
               outcome + R"(","status":0)" + extra + "}";
    };
    s.add(tunnel("github.com", 22, "allowed", ""));
    s.add(tunnel("db.example.com", 5432, "error", R"(,"error":"idle-timeout")"));
    s.add(tunnel("cache.example.com", 6379, "refused",
                 R"(,"refusedBy":"tcp-destination-not-allowed")"));
    s.add(tunnel("10.0.0.1", 22, "refused", R"(,"refusedBy":"destination-address")"));
    s.add(line("api.example.com", 443, "GET", "/a"));
    const auto spec = s.spec();
    CHECK(spec["tcp"] ==
          ojson::array({"cache.example.com:6379", "db.example.com:5432", "github.com:22"}));
    auto document = spec;
    document["template"] = "debian:12";
    CHECK(osf::parse_spec(document.dump()).ok());
    CHECK_FALSE(SpecSuggestion().spec().contains("tcp"));
}

TEST_CASE("suggest: a call refused by argument rules suggests nothing; allowed calls their tool") {
    SpecSuggestion s;
    s.add(line("tracker.example.com", 443, "POST", "/mcp", "allowed",
               R"(,"mcpServer":"tracker","tool":"create_issue")"));
    s.add(line(
        "tracker.example.com", 443, "POST", "/mcp", "refused",
        R"(,"refusedBy":"tool-argument-not-allowed","mcpServer":"tracker","tool":"delete_project","rule":"tracker:delete_project#project")"));
    const auto spec = s.spec();
    // The log holds no argument values: the tool comes back as a name, for a
    // reviewer to give it its argument rules again.
    CHECK(spec["mcp"] ==
          ojson::parse(R"([{"name": "tracker", "url": "https://tracker.example.com/mcp",
                                           "tools": ["create_issue"]}])"));
    CHECK(osf::parse_spec(spec.dump()).ok());
}
