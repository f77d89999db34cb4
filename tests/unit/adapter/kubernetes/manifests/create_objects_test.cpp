// The objects of one create carry the spec's labels, every one of them.
#include "kubernetes/manifests/create_objects.hpp"
#include "kubernetes/manifests/sandbox_objects.hpp"
#include "request_fixture.hpp"

#include <catch2/catch.hpp>

using namespace osf::kubernetes::manifests;
using nlohmann::json;

TEST_CASE("every object create makes carries the user's labels, the adapter's kept") {
    auto request = osf::testing::sample_request();
    request.spec.labels = {{"run", "r1"}, {"example.com/deployment", "prod"}};
    const json list = dry_run_list(request, image_pod_template("node:24-alpine"));
    REQUIRE(list["items"].size() >= 8);
    for (const auto& item : list["items"]) {
        INFO(item["kind"].get<std::string>() + "/" + item["metadata"]["name"].get<std::string>());
        const json labels = item["metadata"]["labels"];
        CHECK(labels["run"] == "r1");
        CHECK(labels["example.com/deployment"] == "prod");
        CHECK(labels["osf.sandbox.id"] == request.id);
        if (item["kind"] == "SandboxTemplate")
            CHECK(item["spec"]["podTemplate"]["metadata"]["labels"]["run"] == "r1");
    }
}

TEST_CASE("without labels the objects are as before") {
    const auto request = osf::testing::sample_request();
    const json list = dry_run_list(request, image_pod_template("a:b")); // outlives the loop
    for (const auto& item : list["items"])
        CHECK_FALSE(item["metadata"]["labels"].contains("run"));
}
