// POST /policy's decision: a new spec that differs only in egress and tools is
// applied as new rules one generation on; anything else is refused.
#include "config/policy_change.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace osf::config;

namespace {

const std::string before = R"({"egress": ["api.example.com"], "secrets": {"T": "ref:env/T"},
  "mcp": [{"name": "wiki", "url": "https://wiki.example.com/mcp", "tools": ["search"]}]})";

std::shared_ptr<const EgressRules> rules_of(const std::string& text) {
    return make_egress_rules(text, *osf::parse_spec(text).spec, {}, {}, 0);
}

std::string body(const std::string& spec, const std::string& by = "ops@box") {
    return nlohmann::json{{"spec", spec}, {"by", by}}.dump();
}

} // namespace

TEST_CASE("a change of egress and tools makes new rules, a generation on") {
    const auto current = rules_of(before);
    std::string after = before;
    after.replace(after.find(R"(["api.example.com"])"), 19, R"(["registry.npmjs.org"])");
    after.replace(after.find(R"(["search"])"), 10, R"(["search", "edit"])");
    const auto change = plan_policy_change(*current, body(after), {});
    REQUIRE(change.status == 200);
    REQUIRE(change.rules);
    CHECK(change.rules->generation == 1);
    CHECK(change.by == "ops@box");
    CHECK(change.rules->policy.check_destination("registry.npmjs.org", 443).allowed);
    CHECK_FALSE(change.rules->policy.check_destination("api.example.com", 443).allowed);
    CHECK(change.rules->mcp_policy("wiki")->tools.count("edit") == 1);
    const auto answer = nlohmann::json::parse(policy_answer(change, 1));
    CHECK(answer["allowed"] == nlohmann::json{"registry.npmjs.org"});
    CHECK(answer["revoked"] == nlohmann::json{"api.example.com"});
    CHECK(answer["toolsAllowed"] == nlohmann::json{"wiki:edit"});
    // The rules in force are untouched: a new object, not an edit.
    CHECK(current->policy.check_destination("api.example.com", 443).allowed);
}

TEST_CASE("what may not change live, and what is not a request, is refused") {
    const auto current = rules_of(before);
    std::string secret = before;
    secret.replace(secret.find("ref:env/T"), 9, "ref:env/U");
    auto change = plan_policy_change(*current, body(secret), {});
    CHECK(change.status == 409);
    CHECK_THAT(change.message, Catch::Contains("$.secrets differs"));
    CHECK_FALSE(change.rules);
    CHECK(plan_policy_change(*current, "{not json", {}).status == 400);
    CHECK(plan_policy_change(*current, R"({"by": "x"})", {}).status == 400);
    change = plan_policy_change(*current, body(R"({"egress": ["a..b"]})"), {});
    CHECK(change.status == 400);
    CHECK_THAT(change.message, Catch::StartsWith("the new spec is not valid: $.egress[0]"));
    change = plan_policy_change(*current, body(before, std::string(1000, 'x')), {});
    CHECK(change.status == 200);
    CHECK_FALSE(change.rules); // nothing to change
    CHECK(change.by.size() == max_by_bytes);
}
