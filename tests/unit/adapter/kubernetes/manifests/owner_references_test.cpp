#include "claim_fixture.hpp"
#include "kubernetes/manifests/create_objects.hpp"
#include "kubernetes/manifests/owner_references.hpp"
#include "kubernetes/manifests/sandbox_objects.hpp"
#include "request_fixture.hpp"
#include "sandbox/lifetime.hpp"
#include "sandbox/settings.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>

using nlohmann::json;
using namespace osf::kubernetes::manifests;
using namespace osf::sandbox;
using namespace std::chrono_literals;
using osf::testing::claim;
using osf::testing::kNow;

TEST_CASE("ownership: the claim's reference, and everything after it born owned by it") {
    const json reference = claim_owner_reference(claim("0123456789ab", "", ""));
    CHECK(reference == json{{"apiVersion", "extensions.agents.x-k8s.io/v1beta1"},
                            {"kind", "SandboxClaim"},
                            {"name", "osf-sandbox-0123456789ab"},
                            {"uid", "uid-0123456789ab"}});
    CHECK(owner_patch(reference) ==
          json{{"metadata", {{"ownerReferences", json::array({reference})}}}});
    const auto request = osf::testing::sample_request();
    const json egress = owned_by(egress_side_objects(request, request.lifetime.created), reference);
    const json sandbox =
        owned_by(sandbox_side_objects(request, image_pod_template("a:b"), "PEM", kNow), reference);
    std::vector<std::string> kinds;
    for (const json* group : {&egress, &sandbox})
        for (const auto& object : *group) {
            CHECK(object["metadata"]["ownerReferences"] == json::array({reference}));
            // So gc's read of parts left without a claim leaves it out.
            CHECK(object["metadata"]["labels"]["osf.sandbox.owned-by-claim"] == "true");
            CHECK(object["metadata"]["labels"]["osf.sandbox.id"] == request.id);
            kinds.push_back(object["kind"].get<std::string>());
        }
    // The SandboxWarmPool last: its appearance sets the claim's controller to work.
    CHECK(kinds == std::vector<std::string>{"ConfigMap", "Pod", "Service", "NetworkPolicy",
                                            "ConfigMap", "SandboxTemplate", "SandboxWarmPool"});
    // The claim itself has no owner; it carries the lifecycle.
    const json claim_object = sandbox_claim_object(request, image_pod_template("node:24-alpine"));
    CHECK_FALSE(claim_object["metadata"].contains("ownerReferences"));
    CHECK_FALSE(claim_object["metadata"]["labels"].contains("osf.sandbox.owned-by-claim"));
    CHECK(claim_object["spec"]["lifecycle"]["shutdownTime"] == "2026-11-30T03:00:00Z");
}

TEST_CASE("ownership: the Secret is made labelled and owned by the claim") {
    const json owner = claim_owner_reference(claim("0123456789ab", "", ""));
    CHECK(secret_metadata_patch("0123456789ab", owner) ==
          json{{"metadata",
                {{"labels",
                  {{"osf.sandbox.id", "0123456789ab"},
                   {"app.kubernetes.io/managed-by", "sandbox-kubernetes"},
                   {"osf.sandbox.owned-by-claim", "true"}}},
                 {"ownerReferences", json::array({owner})}}}});
}
