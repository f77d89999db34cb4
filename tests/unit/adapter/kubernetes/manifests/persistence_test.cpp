// Persistent workspaces and suspension: the template's volume claim, the pod's
// mounts, the saved egress pod, the patches.
#include "kubernetes/manifests/create_objects.hpp"
#include "kubernetes/manifests/persistence.hpp"
#include "kubernetes/manifests/sandbox_objects.hpp"
#include "kubernetes/manifests/snapshot_objects.hpp"
#include "kubernetes/manifests/suspension.hpp"
#include "request_fixture.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

using nlohmann::json;
using namespace osf::kubernetes::manifests;
using namespace osf::sandbox;

namespace {

json mount_at(const json& container, const std::string& path) {
    for (const auto& mount : container["volumeMounts"])
        if (mount["mountPath"] == path) return mount;
    return nullptr;
}

json named(const json& array, const std::string& name) {
    for (const auto& item : array)
        if (item.value("name", "") == name) return item;
    return nullptr;
}

} // namespace

TEST_CASE("persistence: a volume claim template, the claim at /workspace and the home") {
    auto request = osf::testing::sample_request();
    request.spec.persistence = osf::Persistence{"10Gi", "fast-ssd"};
    const json objects = sandbox_side_objects(request, image_pod_template("node:24-alpine"), "PEM",
                                              request.lifetime.created);
    const json& tmpl = objects[1];
    REQUIRE(has_persistent_workspace(tmpl));
    CHECK(tmpl["spec"]["volumeClaimTemplates"] ==
          json::array({json{{"metadata",
                             {{"name", "workspace"},
                              {"labels",
                               {{"osf.sandbox.id", "0123456789ab"},
                                {"app.kubernetes.io/managed-by", "sandbox-kubernetes"},
                                {"osf.sandbox.owned-by-claim", "true"}}}}},
                            {"spec",
                             {{"accessModes", json::array({"ReadWriteOnce"})},
                              {"resources", {{"requests", {{"storage", "10Gi"}}}}},
                              {"storageClassName", "fast-ssd"}}}}}));
    const json& pod = tmpl["spec"]["podTemplate"]["spec"];
    CHECK(named(pod["volumes"], "workspace").is_null()); // agent-sandbox adds it on the claim
    CHECK_FALSE(named(pod["volumes"], "osf-egress-ca").is_null());
    const json& container = pod["containers"][0];
    CHECK(mount_at(container, "/workspace") ==
          json{{"name", "workspace"}, {"mountPath", "/workspace"}, {"subPath", "workspace"}});
    CHECK(mount_at(container, "/home/sandbox") ==
          json{{"name", "workspace"}, {"mountPath", "/home/sandbox"}, {"subPath", "home"}});
    CHECK(named(container["env"], "HOME") == json{{"name", "HOME"}, {"value", "/home/sandbox"}});
    CHECK(container["workingDir"] == "/workspace");

    // The spec's own HOME wins; no StorageClass means the cluster's default.
    request.spec.env["HOME"] = "/root";
    request.spec.persistence = osf::Persistence{"1Gi", std::nullopt};
    const json other = sandbox_side_objects(request, image_pod_template("a:b"), "PEM",
                                            request.lifetime.created)[1];
    CHECK_FALSE(other["spec"]["volumeClaimTemplates"][0]["spec"].contains("storageClassName"));
    CHECK(named(other["spec"]["podTemplate"]["spec"]["containers"][0]["env"], "HOME")["value"] ==
          "/root");
}

TEST_CASE("without persistence the workspace is an emptyDir, also from a persistent template") {
    auto request = osf::testing::sample_request();
    const json plain = sandbox_side_objects(request, image_pod_template("a:b"), "PEM",
                                            request.lifetime.created)[1];
    CHECK_FALSE(has_persistent_workspace(plain));
    CHECK(named(plain["spec"]["podTemplate"]["spec"]["volumes"], "workspace")["emptyDir"]
              .is_object());
    // A snapshot of a persistent sandbox copies its pod template: a mount without its volume.
    request.spec.persistence = osf::Persistence{"1Gi", std::nullopt};
    const json persistent_pod =
        sandbox_side_objects(request, image_pod_template("a:b"), "PEM",
                             request.lifetime.created)[1]["spec"]["podTemplate"];
    request.spec.persistence.reset();
    const json again =
        sandbox_side_objects(request, persistent_pod, "PEM", request.lifetime.created)[1];
    CHECK(named(again["spec"]["podTemplate"]["spec"]["volumes"], "workspace")["emptyDir"]
              .is_object());
}

TEST_CASE("suspension: patches, the saved egress pod and back") {
    CHECK(operating_mode_patch(false) == json{{"spec", {{"operatingMode", "Suspended"}}}});
    CHECK(operating_mode_patch(true) == json{{"spec", {{"operatingMode", "Running"}}}});
    CHECK(sandbox_suspended(json{{"spec", {{"operatingMode", "Suspended"}}}}));
    CHECK_FALSE(sandbox_suspended(json{{"spec", json::object()}}));
    CHECK(suspended_patch("2026-11-29T19:00:00Z") ==
          json{{"metadata",
                {{"annotations", {{"osf.sandbox.suspended-at", "2026-11-29T19:00:00Z"}}}}}});
    CHECK(suspended_patch(std::nullopt)["metadata"]["annotations"]["osf.sandbox.suspended-at"]
              .is_null());
    CHECK(claim_suspended(suspended_patch("x")));
    CHECK(ca_patch("PEM") == json{{"data", {{"egress-ca.crt", "PEM"}}}});

    const json owner = {{"kind", "SandboxClaim"}, {"uid", "u1"}};
    const json live = {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata",
         {{"name", "osf-sandbox-0123456789ab-egress"},
          {"namespace", "agents"},
          {"uid", "pod-uid"},
          {"resourceVersion", "7"},
          {"creationTimestamp", "2026-11-29T18:00:00Z"},
          {"labels", {{"osf.sandbox.id", "0123456789ab"}}},
          {"ownerReferences", json::array({owner})}}},
        {"spec", {{"nodeName", "node-1"}, {"containers", json::array({json{{"name", "p"}}})}}},
        {"status", {{"phase", "Running"}}}};
    const json saved = saved_egress_pod(live, "0123456789ab");
    CHECK(saved["kind"] == "ConfigMap");
    CHECK(saved["metadata"]["name"] == "osf-sandbox-0123456789ab-egress-pod");
    CHECK(saved["metadata"]["labels"] == live["metadata"]["labels"]);
    CHECK(saved["metadata"]["ownerReferences"] == json::array({owner}));
    const json pod = egress_pod_from_saved(saved);
    CHECK(pod == json{{"apiVersion", "v1"},
                      {"kind", "Pod"},
                      {"metadata",
                       {{"name", "osf-sandbox-0123456789ab-egress"},
                        {"namespace", "agents"},
                        {"labels", {{"osf.sandbox.id", "0123456789ab"}}},
                        {"ownerReferences", json::array({owner})}}},
                      {"spec", {{"containers", json::array({json{{"name", "p"}}})}}}});
    CHECK(egress_pod_from_saved(json{{"data", {{"pod.json", "not json"}}}}).is_discarded());
}

TEST_CASE("package cache: /cache on the shared claim, or an emptyDir; the variables point there") {
    auto request = osf::testing::sample_request();
    const auto pod_of = [](const json& objects) {
        return objects[1]["spec"]["podTemplate"]["spec"];
    };
    const json plain = pod_of(
        sandbox_side_objects(request, image_pod_template("a:b"), "PEM", request.lifetime.created));
    CHECK(named(plain["volumes"], "osf-package-cache") ==
          json{{"name", "osf-package-cache"}, {"emptyDir", json::object()}});
    const json& container = plain["containers"][0];
    CHECK(mount_at(container, "/cache") ==
          json{{"name", "osf-package-cache"}, {"mountPath", "/cache"}});
    const std::pair<const char*, const char*> variables[] = {
        {"XDG_CACHE_HOME", "/cache"},    {"npm_config_cache", "/cache/npm"},
        {"PIP_CACHE_DIR", "/cache/pip"}, {"GOMODCACHE", "/cache/go/mod"},
        {"GOCACHE", "/cache/go/build"},  {"COMPOSER_CACHE_DIR", "/cache/composer"}};
    for (const auto& [name, value] : variables)
        CHECK(named(container["env"], name) == json{{"name", name}, {"value", value}});

    request.spec.cache = osf::PackageCache{"package-cache"};
    request.spec.env["GOCACHE"] = "/tmp/go"; // the spec's own value wins
    const json shared = pod_of(
        sandbox_side_objects(request, image_pod_template("a:b"), "PEM", request.lifetime.created));
    CHECK(named(shared["volumes"], "osf-package-cache") ==
          json{{"name", "osf-package-cache"},
               {"persistentVolumeClaim", {{"claimName", "package-cache"}}}});
    CHECK(named(shared["containers"][0]["env"], "GOCACHE")["value"] == "/tmp/go");
    CHECK(named(shared["containers"][0]["env"], "PIP_CACHE_DIR")["value"] == "/cache/pip");
    // Applied to its own output (a snapshot's template), nothing doubles.
    const json again = pod_of(sandbox_side_objects(
        request,
        sandbox_side_objects(request, image_pod_template("a:b"), "PEM",
                             request.lifetime.created)[1]["spec"]["podTemplate"],
        "PEM", request.lifetime.created));
    CHECK(std::count_if(again["volumes"].begin(), again["volumes"].end(),
                        [](const json& v) { return v["name"] == "osf-package-cache"; }) == 1);
    CHECK(std::count_if(again["containers"][0]["env"].begin(), again["containers"][0]["env"].end(),
                        [](const json& v) { return v["name"] == "XDG_CACHE_HOME"; }) == 1);
}

TEST_CASE("a snapshot restores into the /workspace the new sandbox sees, as its user") {
    // Every combination of: the snapshot's source with or without persistence,
    // the new sandbox with or without it, each as root or as a spec `user`.
    for (const bool source_persistent : {false, true})
        for (const bool source_user : {false, true})
            for (const bool persistent : {false, true})
                for (const bool user : {false, true}) {
                    INFO("source persistent " << source_persistent << ", source user "
                                              << source_user << ", persistent " << persistent
                                              << ", user " << user);
                    auto source_request = osf::testing::sample_request();
                    if (source_persistent)
                        source_request.spec.persistence = osf::Persistence{"1Gi", std::nullopt};
                    if (source_user) source_request.spec.user = osf::SandboxUser{2000, 2000};
                    const json source =
                        sandbox_side_objects(source_request, image_pod_template("node:24-alpine"),
                                             "PEM", source_request.lifetime.created)[1];
                    SnapshotRequest snap{"0123456789ab", "agents", "20261129190000", "1Gi", ""};
                    take_sandbox_pod_settings(source, snap);
                    const json snapshot = snapshot_template(source, snap);

                    auto request = osf::testing::sample_request();
                    request.id = "bbbbbbbbbbbb";
                    if (persistent)
                        request.spec.persistence = osf::Persistence{"1Gi", std::nullopt};
                    if (user) request.spec.user = osf::SandboxUser{1000, 1000};
                    const json tmpl = sandbox_side_objects(request, snapshot["spec"]["podTemplate"],
                                                           "PEM", request.lifetime.created)[1];
                    const json& pod = tmpl["spec"]["podTemplate"]["spec"];
                    const json& sandbox = pod["containers"][0];
                    const json restore = named(pod["initContainers"], "osf-restore-workspace");
                    REQUIRE(restore.is_object());
                    const json seen = mount_at(sandbox, "/workspace");
                    const json restored = mount_at(restore, "/workspace");
                    CHECK(restored["name"] == seen["name"]);
                    CHECK(restored.value("subPath", "") == seen.value("subPath", ""));
                    CHECK(seen.value("subPath", "") == (persistent ? "workspace" : ""));
                    CHECK(has_persistent_workspace(tmpl) == persistent);
                    if (!persistent)
                        CHECK(named(pod["volumes"], "workspace")["emptyDir"].is_object());
                    CHECK(restore["securityContext"] == sandbox["securityContext"]);
                    // Without `user`, a snapshot's template keeps its source's user.
                    if (user) CHECK(restore["securityContext"]["runAsUser"] == 1000);
                }
}
