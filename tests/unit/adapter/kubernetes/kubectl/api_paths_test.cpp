#include "kubernetes/kubectl/api_paths.hpp"

#include <catch2/catch.hpp>

using namespace osf::kubernetes::kubectl;

TEST_CASE("api paths: the collection of each kind the adapter reads") {
    struct Case {
        std::string resource, path, kind;
    };
    const std::vector<Case> cases = {
        {"sandboxclaims.v1beta1.extensions.agents.x-k8s.io",
         "/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/ns1/sandboxclaims", "SandboxClaim"},
        {"sandboxtemplates.v1beta1.extensions.agents.x-k8s.io",
         "/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/ns1/sandboxtemplates",
         "SandboxTemplate"},
        {"sandboxwarmpools.v1beta1.extensions.agents.x-k8s.io",
         "/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/ns1/sandboxwarmpools",
         "SandboxWarmPool"},
        {"sandboxes.v1beta1.agents.x-k8s.io",
         "/apis/agents.x-k8s.io/v1beta1/namespaces/ns1/sandboxes", "Sandbox"},
        {"networkpolicies.v1.networking.k8s.io",
         "/apis/networking.k8s.io/v1/namespaces/ns1/networkpolicies", "NetworkPolicy"},
        {"pods", "/api/v1/namespaces/ns1/pods", "Pod"},
        {"services", "/api/v1/namespaces/ns1/services", "Service"},
        {"configmaps", "/api/v1/namespaces/ns1/configmaps", "ConfigMap"},
        {"persistentvolumeclaims", "/api/v1/namespaces/ns1/persistentvolumeclaims",
         "PersistentVolumeClaim"},
    };
    for (const auto& c : cases) {
        INFO(c.resource);
        const auto found = collection(c.resource, "ns1");
        REQUIRE(found);
        CHECK(found->path == c.path);
        CHECK(found->kind == c.kind);
    }
    // Never read: not known, so no path is guessed (a Secret least of all).
    CHECK_FALSE(collection("secrets", "ns1"));
    CHECK_FALSE(collection("sandboxclaims", "ns1"));
    CHECK_FALSE(collection("", "ns1"));
}

TEST_CASE("api paths: a selector percent-encoded for the query") {
    CHECK(query_escape("app.kubernetes.io/managed-by=sandbox-kubernetes") ==
          "app.kubernetes.io%2Fmanaged-by%3Dsandbox-kubernetes");
    CHECK(query_escape("a in (x,y),!b") == "a%20in%20%28x%2Cy%29%2C%21b");
    CHECK(query_escape("") == "");
}
