#include "claim_fixture.hpp"
#include "kubernetes/manifests/claim_lifetime.hpp"
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

TEST_CASE("the claim's lifecycle, annotations and the pods' deadline") {
    const Lifetime lifetime{kNow, kNow + 90min, kNow + 150min};
    const json claim_object = with_lifetime(
        {{"kind", "SandboxClaim"}, {"metadata", {{"name", "c"}}}, {"spec", json::object()}},
        lifetime);
    CHECK(claim_object["spec"]["lifecycle"] ==
          json{{"shutdownTime", "2026-11-29T20:30:00Z"}, {"shutdownPolicy", "Delete"}});
    CHECK(claim_object["metadata"]["annotations"] ==
          json{{"osf.sandbox.created-at", "2026-11-29T19:00:00Z"},
               {"osf.sandbox.expires-at", "2026-11-29T20:30:00Z"},
               {"osf.sandbox.pods-end-at", "2026-11-29T21:30:00Z"}});
    CHECK(claim_expiry(claim_object) == kNow + 90min);
    CHECK(claim_created(claim_object) == kNow);
    CHECK(claim_pods_end(claim_object) == kNow + 150min);
    CHECK(claim_pods_end(json::object()) == std::nullopt);
    const json pod_spec = {{"containers", json::array()}};
    // Counted from when the pod is made, whole seconds rounded up, at least 1.
    CHECK(with_pod_deadline(pod_spec, lifetime.pods_end, kNow)["activeDeadlineSeconds"] == 9000);
    CHECK(with_pod_deadline(pod_spec, lifetime.pods_end,
                            kNow + 1h + 500ms)["activeDeadlineSeconds"] == 5400);
    CHECK(with_pod_deadline(pod_spec, lifetime.pods_end, kNow + 3h)["activeDeadlineSeconds"] == 1);
    // A template's own shorter deadline stays; a longer one is cut.
    CHECK(with_pod_deadline({{"activeDeadlineSeconds", 600}}, lifetime.pods_end,
                            kNow)["activeDeadlineSeconds"] == 600);
    CHECK(with_pod_deadline({{"activeDeadlineSeconds", 99999}}, lifetime.pods_end,
                            kNow)["activeDeadlineSeconds"] == 9000);
    // resume bounds the Sandbox's next pod by what is left.
    const json sandbox = {
        {"spec", {{"podTemplate", {{"spec", {{"activeDeadlineSeconds", 9000}}}}}}}};
    CHECK(sandbox_deadline_patch(sandbox, lifetime.pods_end, kNow + 2h) ==
          json{{"spec", {{"podTemplate", {{"spec", {{"activeDeadlineSeconds", 1800}}}}}}}});
    CHECK(rfc3339(kNow) == "2026-11-29T19:00:00Z");
}

TEST_CASE("extended_expiry: later by the duration, from now once past, within the maximum") {
    const json c = claim("0123456789ab", "2026-11-29T18:00:00Z", "2026-11-29T20:00:00Z");
    CHECK(extended_expiry(c, 30min, 168h, kNow) == kNow + 90min);
    // Already past its expiry (the controller has not deleted it yet): from now.
    const json past = claim("0123456789ab", "2026-11-29T10:00:00Z", "2026-11-29T18:00:00Z");
    CHECK(extended_expiry(past, 1h, 168h, kNow) == kNow + 1h);
    // At most created + max.
    CHECK(extended_expiry(c, 22h, 24h, kNow) == kNow + 23h);
    CHECK_THROWS_WITH(extended_expiry(c, 24h, 24h, kNow),
                      "cannot extend to 2026-11-30T20:00:00Z: a sandbox lives at most 1d "
                      "(OSF_SANDBOX_MAX_LIFETIME), until 2026-11-30T18:00:00Z");
    // Never past the pods' deadline, which the kubelet enforces and nobody can move later.
    json bounded = c;
    bounded["metadata"]["annotations"]["osf.sandbox.pods-end-at"] = "2026-11-29T22:00:00Z";
    CHECK(extended_expiry(bounded, 2h, 168h, kNow) == kNow + 3h);
    CHECK_THROWS_WITH(extended_expiry(bounded, 2h + 1s, 168h, kNow),
                      "cannot extend to 2026-11-29T22:00:01Z: the kubelet ends this sandbox's "
                      "pods at 2026-11-29T22:00:00Z (activeDeadlineSeconds, which Kubernetes "
                      "never moves later); a longer OSF_SANDBOX_EXTEND_WINDOW at create allows "
                      "more");
    CHECK(
        expiry_patch(kNow) ==
        json{{"metadata", {{"annotations", {{"osf.sandbox.expires-at", "2026-11-29T19:00:00Z"}}}}},
             {"spec", {{"lifecycle", {{"shutdownTime", "2026-11-29T19:00:00Z"}}}}}});
}
