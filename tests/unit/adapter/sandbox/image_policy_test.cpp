#include "sandbox/image_policy.hpp"
#include "sandbox/secret_plan.hpp"
#include "sandbox/settings.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using nlohmann::json;
using namespace osf::sandbox;

TEST_CASE("image patterns: split, match, the first refused image of a pod template") {
    using osf::sandbox::image_allowed;
    CHECK(osf::sandbox::split_image_patterns(" a/* ,, node:24-* ,") ==
          std::vector<std::string>{"a/*", "node:24-*"});
    struct Row {
        const char* image;
        std::vector<std::string> patterns;
        bool allowed;
    };
    const Row rows[] = {
        {"anything", {}, true},
        {"ghcr.io/acme/dev:1", {"ghcr.io/acme/*"}, true},
        {"ghcr.io/acme/team/dev:1", {"ghcr.io/acme/*"}, true}, // '*' crosses '/'
        {"ghcr.io/acmex/dev:1", {"ghcr.io/acme/*"}, false},
        {"node:24-alpine", {"ghcr.io/*", "node:24-*"}, true},
        {"node:22-alpine", {"node:24-*"}, false},
        {"evil.example/ghcr.io/acme/x", {"ghcr.io/acme/*"}, false}, // the whole reference
        {"node:24", {"node:2?"}, true},
    };
    for (const auto& row : rows) {
        INFO(row.image);
        CHECK(image_allowed(row.image, row.patterns) == row.allowed);
    }
    const nlohmann::json pod = {
        {"spec",
         {{"initContainers", nlohmann::json::array({{{"name", "i"}, {"image", "ok/i"}}})},
          {"containers", nlohmann::json::array({{{"name", "c"}, {"image", "bad/c"}}})}}}};
    CHECK(osf::sandbox::refused_image(pod, {"ok/*"}) == "bad/c");
    CHECK_FALSE(osf::sandbox::refused_image(pod, {"ok/*", "bad/*"}));
}
