#include "kubernetes/manifests/user_labels.hpp"

#include <catch2/catch.hpp>

using namespace osf::kubernetes::manifests;
using nlohmann::json;

TEST_CASE("user labels go on an object, its pod template and volume claim templates") {
    const json tmpl = {
        {"kind", "SandboxTemplate"},
        {"metadata", {{"name", "t"}, {"labels", {{"osf.sandbox.id", "id"}}}}},
        {"spec",
         {{"podTemplate", {{"spec", json::object()}}},
          {"volumeClaimTemplates", json::array({json{{"metadata", {{"name", "w"}}}}})}}}};
    const json out = with_user_labels(tmpl, {{"run", "r1"}, {"osf.sandbox.id", "never"}});
    CHECK(out["metadata"]["labels"] == json{{"osf.sandbox.id", "id"}, {"run", "r1"}});
    CHECK(out["spec"]["podTemplate"]["metadata"]["labels"] ==
          json{{"osf.sandbox.id", "never"}, {"run", "r1"}});
    CHECK(out["spec"]["volumeClaimTemplates"][0]["metadata"]["labels"]["run"] == "r1");
    CHECK(with_user_labels(tmpl, {}) == tmpl);
}

TEST_CASE("user labels on every object of a list") {
    const json objects = json::array({json{{"kind", "ConfigMap"}}, json{{"kind", "Service"}}});
    for (const auto& object : with_user_labels_each(objects, {{"run", "r1"}}))
        CHECK(object["metadata"]["labels"] == json{{"run", "r1"}});
}
