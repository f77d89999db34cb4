// Egress entries written as objects: {"host", "rules", "reason"}.
#include "spec_test_support.hpp"

#include <catch2/catch.hpp>

using namespace spec_test;

namespace {

std::string entry(const std::string& rules, const std::string& host = "api.example.com") {
    return spec_with(R"("egress": [{"host": ")" + host + R"(", "rules": )" + rules + "}]");
}

} // namespace

TEST_CASE("an egress entry with rules is read whole, defaults named") {
    const auto spec = valid_spec(entry(R"([
        {"name": "read", "methods": "read-only", "paths": ["/repos/acme/*"], "allow": true,
         "reason": "reads only"},
        {"methods": ["POST", "PUT"], "paths": ["/a", "/b/*/c", "/"], "query": {"service": "x"},
         "deny": true}])",
                                       "API.Example.com.:8443"));
    REQUIRE(spec.egress.size() == 1);
    const auto& e = spec.egress.front();
    CHECK(e.host == "api.example.com");
    CHECK(e.port == 8443);
    CHECK(e.has_rules);
    REQUIRE(e.rules.size() == 2);
    CHECK(e.rules[0].name == "read");
    CHECK(e.rules[0].read_only);
    CHECK(e.rules[0].methods == std::vector<std::string>{"GET", "HEAD", "OPTIONS"});
    CHECK(e.rules[0].allow);
    CHECK(e.rules[0].reason == "reads only");
    CHECK(e.rules[1].name == "api.example.com:8443#1");
    CHECK_FALSE(e.rules[1].allow);
    CHECK(e.rules[1].paths == std::vector<std::string>{"/a", "/b/*/c", "/"});
    CHECK(e.rules[1].query == std::vector<std::pair<std::string, std::string>>{{"service", "x"}});
    // A string entry has none.
    CHECK_FALSE(valid_spec(spec_with(R"("egress": ["a.example.com"])")).egress.front().has_rules);
}

TEST_CASE("bad rules are named by their JSONPath with the fix") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {R"([{"paths": ["repos"], "allow": true}])",
         "$.egress[0].rules[0].paths[0]: \"repos\" does not start with '/'"},
        {R"([{"paths": ["/a//b"], "allow": true}])",
         "$.egress[0].rules[0].paths[0]: \"/a//b\" has an empty segment"},
        {R"([{"paths": ["/a/./b"], "allow": true}])",
         "$.egress[0].rules[0].paths[0]: \"/a/./b\" has a '.' segment"},
        {R"([{"paths": ["/a b"], "allow": true}])",
         "$.egress[0].rules[0].paths[0]: \"/a b\" holds \" \""},
        {R"([{"paths": ["/a", "/a"], "allow": true}])",
         "$.egress[0].rules[0].paths[1]: \"/a\" is listed twice"},
        {R"([{"paths": [], "allow": true}])", "$.egress[0].rules[0].paths: is empty"},
        {R"([{"methods": [], "allow": true}])", "$.egress[0].rules[0].methods: is empty"},
        {R"([{"methods": ["GET", "GET"], "allow": true}])",
         "$.egress[0].rules[0].methods[1]: \"GET\" is listed twice"},
        {R"([{"methods": ["G ET"], "allow": true}])",
         "$.egress[0].rules[0].methods[0]: \"G ET\" is not a method"},
        {R"([{"query": {}, "allow": true}])", "$.egress[0].rules[0].query: is empty"},
        {R"([{"query": {"a&b": "c"}, "allow": true}])",
         "$.egress[0].rules[0].query['a&b']: \"a&b\" is not a parameter name"},
        {R"([{"query": {"a": 1}, "allow": true}])",
         "$.egress[0].rules[0].query.a: must be the parameter's value"},
        {R"([{"deny": false}])", "$.egress[0].rules[0].deny: must be true (to allow"},
        {R"([{"methods": ["GET"]}])",
         "$.egress[0].rules[0]: says neither \"allow\": true nor \"deny\": true"},
        {R"([{"name": "Read", "allow": true}])", "$.egress[0].rules[0].name: must be a short name"},
        {R"([{"name": "r", "allow": true}, {"name": "r", "deny": true}])",
         "$.egress[0].rules[1].name: \"r\" is already the name of another rule"},
        {R"([{"reason": "", "allow": true}])", "$.egress[0].rules[0].reason: must be 1 to 512"},
        {R"("all")", "$.egress[0].rules: must be"},
        {R"([1])", "$.egress[0].rules[0]: must be an object"},
    };
    for (const auto& [rules, error] : cases) {
        INFO(rules);
        const auto errors = errors_of(entry(rules));
        REQUIRE(errors.size() == 1);
        CHECK_THAT(errors.front(), Catch::StartsWith(error));
    }
}

TEST_CASE("a host is listed once when one of its entries has rules") {
    const auto errors = errors_of(spec_with(
        R"("egress": ["api.example.com", {"host": "API.example.com", "rules": [{"allow": true}]}])"));
    REQUIRE(errors.size() == 1);
    CHECK_THAT(errors.front(),
               Catch::StartsWith("$.egress[1]: \"api.example.com\" is listed twice (first at "
                                 "$.egress[0])"));
    // Another port, or a wildcard above it, is another entry.
    valid_spec(spec_with(R"("egress": ["api.example.com", "*.example.com",
        {"host": "api.example.com:8443", "rules": [{"allow": true}]}])"));
    CHECK(error_paths(spec_with(R"("egress": [{"host": "a.example.com", "rules": []}])")) ==
          std::vector<std::string>{"$.egress[0].rules"});
    CHECK(error_paths(spec_with(R"("egress": [{"rules": [{"allow": true}]}])")) ==
          std::vector<std::string>{"$.egress[0]"});
    CHECK(error_paths(spec_with(
              R"("egress": [{"host": "a.example.com", "rules": [{"allow": true}], "x": 1}])")) ==
          std::vector<std::string>{"$.egress[0].x"});
}

TEST_CASE("mode: the spec's and an entry's, enforce or audit") {
    CHECK(valid_spec(spec_with(R"("mode": "audit")")).audit);
    CHECK_FALSE(valid_spec(spec_with(R"("mode": "enforce")")).audit);
    CHECK_FALSE(valid_spec(spec_with("")).audit);
    const auto spec = valid_spec(spec_with(R"("egress": [
        {"host": "a.example.com", "mode": "audit", "rules": [{"allow": true}]},
        {"host": "b.example.com", "rules": [{"allow": true}]},
        {"host": "c.example.com", "mode": "enforce", "rules": [{"allow": true}]}])"));
    CHECK(spec.egress[0].audit == true);
    CHECK_FALSE(spec.egress[1].audit.has_value());
    CHECK(spec.egress[2].audit == false);
    const auto errors = errors_of(spec_with(R"("mode": "warn")"));
    REQUIRE(errors.size() == 1);
    CHECK_THAT(errors.front(), Catch::StartsWith("$.mode: must be \"enforce\""));
    CHECK(error_paths(spec_with(
              R"("egress": [{"host": "a.example.com", "mode": 1, "rules": [{"allow": true}]}])")) ==
          std::vector<std::string>{"$.egress[0].mode"});
}
