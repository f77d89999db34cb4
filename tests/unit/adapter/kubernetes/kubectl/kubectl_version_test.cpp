#include "kubectl_outputs.hpp"
#include "kubernetes/kubectl/kubectl_version.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace osf::kubernetes::kubectl;
using kubectl_outputs::kDebianKubectl;
using kubectl_outputs::kPinnedKubectl;
using kubectl_outputs::kVendorKubectl;

TEST_CASE("kubectl's client version is read from `kubectl version --client -o json`") {
    struct Row {
        std::string output;
        std::optional<std::pair<int, int>> version;
        std::string text;
    };
    const std::vector<Row> rows = {
        {kDebianKubectl, std::pair{1, 20}, "v1.20.2"},
        {kPinnedKubectl, std::pair{1, 32}, "v1.32.3"},
        {kVendorKubectl, std::pair{1, 32}, "v1.32.4-eks-1"},
        {R"({"clientVersion": {"major": "1", "minor": "30"}})", std::pair{1, 30}, "v1.30"},
        {R"({"clientVersion": {"major": "2", "minor": "0", "gitVersion": "v2.0.0"}})",
         std::pair{2, 0}, "v2.0.0"},
        {"", std::nullopt, ""},
        {"Client Version: v1.32.3", std::nullopt, ""},
        {R"({"kustomizeVersion": "v5.5.0"})", std::nullopt, ""},
        {R"({"clientVersion": "v1.32.3"})", std::nullopt, ""},
        {R"({"clientVersion": {"major": "1", "minor": ""}})", std::nullopt, ""},
        {R"({"clientVersion": {"major": 1, "minor": 32}})", std::nullopt, ""},
        {R"({"clientVersion": {"major": "one", "minor": "32"}})", std::nullopt, ""},
    };
    for (const auto& row : rows) {
        INFO(row.output);
        const auto version = parse_client_version(row.output);
        REQUIRE(version.has_value() == row.version.has_value());
        if (!version) continue;
        CHECK(std::pair{version->major, version->minor} == *row.version);
        CHECK(version->text == row.text);
    }
}

TEST_CASE("kubectl 1.30 and newer are supported, older ones are not") {
    CHECK_FALSE(is_supported({1, 20, "v1.20.2"}));
    CHECK_FALSE(is_supported({1, 29, "v1.29.9"}));
    CHECK(is_supported({1, 30, "v1.30.0"}));
    CHECK(is_supported({1, 32, "v1.32.3"}));
    CHECK(is_supported({2, 0, "v2.0.0"}));
    CHECK_FALSE(is_supported({0, 99, "v0.99.0"}));
    CHECK(too_old_message({1, 20, "v1.20.2"}) ==
          "kubectl v1.20.2 is too old: sandbox-kubernetes needs kubectl 1.30 or newer on PATH "
          "(adapter/README.md says where to get one)");
}
