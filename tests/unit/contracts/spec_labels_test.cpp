// The spec's `labels`: Kubernetes labels, the adapters' keys refused, each
// error with its JSON path.
#include "osf/spec.hpp"

#include <catch2/catch.hpp>

TEST_CASE("labels: read into the spec", "[spec][labels]") {
    const auto ok = osf::parse_spec(
        R"({"template": "a:b", "labels": {"run": "r-42", "example.com/tier": "", "x": "y.z_1"}})");
    REQUIRE(ok.ok());
    CHECK(ok.spec->labels == std::map<std::string, std::string>{
                                 {"run", "r-42"}, {"example.com/tier", ""}, {"x", "y.z_1"}});
    CHECK(osf::parse_spec(R"({"template": "a:b"})").spec->labels.empty());
}

TEST_CASE("labels: what is wrong, where", "[spec][labels]") {
    const std::pair<const char*, const char*> cases[] = {
        {R"("labels": ["run=x"])", "$.labels"},
        {R"("labels": {"run": 1})", "$.labels.run"},
        {R"("labels": {"run": "a b"})", "$.labels.run"},
        {R"("labels": {"osf.sandbox.id": "x"})", "$.labels['osf.sandbox.id']"},
        {R"("labels": {"app.kubernetes.io/managed-by": "x"})",
         "$.labels['app.kubernetes.io/managed-by']"},
    };
    for (const auto& [field, path] : cases) {
        INFO(field);
        const auto result = osf::parse_spec(std::string(R"({"template": "a:b", )") + field + "}");
        REQUIRE(result.errors.size() == 1);
        CHECK(result.errors[0].path == path);
    }
}
