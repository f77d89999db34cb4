// The policy list -o json shows, from a stored spec's text.
#include "sandbox/spec_policy.hpp"

#include <catch2/catch.hpp>

using nlohmann::json;
using osf::sandbox::spec_policy;

TEST_CASE("spec policy: egress entries as written and each server's tools") {
    const auto policy = spec_policy(R"({"template": "node:24", "egress": ["registry.npmjs.org",
        "*.example.com", "git.example.com:8443"], "secrets": {"T": "ref:env/T"},
        "mcp": [{"name": "wiki", "url": "https://wiki.test/mcp", "tools": ["read", "search"]},
                {"name": "none", "url": "https://none.test/mcp", "tools": []}]})");
    CHECK(policy == json::parse(R"({"egress": ["registry.npmjs.org", "*.example.com",
        "git.example.com:8443"], "mcp": {"wiki": ["read", "search"], "none": []}})"));
}

TEST_CASE("spec policy: a spec without egress or mcp allows nothing; unreadable text is null") {
    CHECK(spec_policy(R"({"template": "node:24"})") ==
          json{{"egress", json::array()}, {"mcp", json::object()}});
    CHECK(spec_policy("").is_null());
    CHECK(spec_policy("[1]").is_null());
    CHECK(spec_policy("{\"egress\": [").is_null());
}

TEST_CASE("spec policy: an entry with rules shows as its object, rules and all") {
    const auto policy = spec_policy(R"({"egress": ["registry.npmjs.org", {"host": "api.github.com",
        "rules": [{"methods": "read-only", "paths": ["/repos/acme/widgets/*"], "allow": true}]}]})");
    CHECK(policy["egress"] == json::parse(R"(["registry.npmjs.org", {"host": "api.github.com",
        "rules": [{"methods": "read-only", "paths": ["/repos/acme/widgets/*"], "allow": true}]}])"));
}

TEST_CASE("spec policy: raw TCP destinations, only when the spec lists some") {
    const auto policy =
        spec_policy(R"({"egress": ["github.com"], "tcp": ["github.com:22", "db.internal:5432"]})");
    CHECK(policy == json::parse(R"({"egress": ["github.com"], "mcp": {},
        "tcp": ["github.com:22", "db.internal:5432"]})"));
    CHECK_FALSE(spec_policy(R"({"tcp": []})").contains("tcp"));
    CHECK_FALSE(spec_policy(R"({"egress": []})").contains("tcp"));
}
