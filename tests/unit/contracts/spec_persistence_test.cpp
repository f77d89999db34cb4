// The spec's `persistence`: a size and an optional StorageClass, each error
// with its JSON path.
#include "osf/spec.hpp"

#include <catch2/catch.hpp>

TEST_CASE("persistence: size and storageClassName", "[spec][persistence]") {
    const auto ok = osf::parse_spec(
        R"({"template": "node:24-alpine", "persistence": {"size": "10Gi", "storageClassName": "fast-ssd"}})");
    REQUIRE(ok.ok());
    REQUIRE(ok.spec->persistence);
    CHECK(ok.spec->persistence->size == "10Gi");
    CHECK(ok.spec->persistence->storage_class == "fast-ssd");
    const auto size_only =
        osf::parse_spec(R"({"template": "node:24-alpine", "persistence": {"size": "512Mi"}})");
    REQUIRE(size_only.ok());
    CHECK_FALSE(size_only.spec->persistence->storage_class);
    CHECK_FALSE(osf::parse_spec(R"({"template": "a:b"})").spec->persistence);
}

TEST_CASE("persistence: what is wrong, where", "[spec][persistence]") {
    const std::pair<const char*, const char*> cases[] = {
        {R"("persistence": "10Gi")", "$.persistence"},
        {R"("persistence": {})", "$.persistence"},
        {R"("persistence": {"size": 10})", "$.persistence.size"},
        {R"("persistence": {"size": "10GB"})", "$.persistence.size"},
        {R"("persistence": {"size": "1Gi", "storageClassName": "Fast_SSD"})",
         "$.persistence.storageClassName"},
        {R"("persistence": {"size": "1Gi", "storageClassName": 3})",
         "$.persistence.storageClassName"},
        {R"("persistence": {"size": "1Gi", "sizes": "2Gi"})", "$.persistence.sizes"},
    };
    for (const auto& [member, path] : cases) {
        INFO(member);
        const auto result =
            osf::parse_spec(std::string(R"({"template": "node:24-alpine", )") + member + "}");
        REQUIRE(result.errors.size() == 1);
        CHECK(result.errors[0].path == path);
    }
}

TEST_CASE("cache: a claim name", "[spec][cache]") {
    const auto ok = osf::parse_spec(
        R"({"template": "node:24-alpine", "cache": {"claimName": "package-cache"}})");
    REQUIRE(ok.ok());
    CHECK(ok.spec->cache->claim_name == "package-cache");
    const std::pair<const char*, const char*> cases[] = {
        {R"("cache": "package-cache")", "$.cache"},
        {R"("cache": {})", "$.cache"},
        {R"("cache": {"claimName": "Cache_1"})", "$.cache.claimName"},
        {R"("cache": {"claimName": 1})", "$.cache.claimName"},
        {R"("cache": {"claimName": "c", "size": "1Gi"})", "$.cache.size"},
    };
    for (const auto& [member, path] : cases) {
        INFO(member);
        const auto result =
            osf::parse_spec(std::string(R"({"template": "node:24-alpine", )") + member + "}");
        REQUIRE(result.errors.size() == 1);
        CHECK(result.errors[0].path == path);
    }
}
