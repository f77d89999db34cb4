#include "kubernetes/manifests/snapshot_objects.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using nlohmann::json;
using namespace osf::kubernetes::manifests;

TEST_CASE("snapshot objects: PVC, copy pod and template, labelled to survive destroy") {
    const SnapshotRequest request{"0123456789ab", "agents", "20261129190000", "2Gi",
                                  "node:24-alpine"};
    const json pvc = snapshot_pvc(request);
    CHECK(pvc["kind"] == "PersistentVolumeClaim");
    CHECK(pvc["metadata"]["name"] == "osf-snapshot-0123456789ab-20261129190000");
    CHECK(pvc["metadata"]["labels"] ==
          json{{"osf.snapshot.of", "0123456789ab"},
               {"app.kubernetes.io/managed-by", "sandbox-kubernetes"}});
    CHECK(pvc["spec"]["resources"]["requests"]["storage"] == "2Gi");
    CHECK(pvc["spec"]["accessModes"] == json::array({"ReadWriteOnce"}));

    const json copy = snapshot_copy_pod(request);
    CHECK(copy["metadata"]["name"] == "osf-snapshot-0123456789ab-20261129190000-copy");
    CHECK(copy["metadata"]["labels"]["osf.sandbox.id"] ==
          "0123456789ab"); // destroy removes a leftover
    CHECK(copy["spec"]["containers"][0]["image"] == "node:24-alpine");
    CHECK(copy["spec"]["containers"][0]["volumeMounts"][0]["mountPath"] == "/data");
    CHECK(copy["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] ==
          "osf-snapshot-0123456789ab-20261129190000");

    const json source = {
        {"metadata", {{"name", "osf-sandbox-0123456789ab"}, {"resourceVersion", "7"}}},
        {"spec",
         {{"podTemplate",
           {{"metadata",
             {{"labels", {{"osf.sandbox.id", "0123456789ab"}, {"osf.sandbox.role", "sandbox"}}}}},
            {"spec",
             {{"containers", json::array({json{{"name", "sandbox"}, {"image", "node:24-alpine"}}})},
              {"volumes",
               json::array({json{{"name", "workspace"}, {"emptyDir", json::object()}}})}}}}},
          {"networkPolicy", {{"ingress", json::array()}}}}}};
    const json tmpl = snapshot_template(source, request);
    CHECK(tmpl["kind"] == "SandboxTemplate");
    CHECK(tmpl["metadata"] == json{{"name", "osf-snapshot-0123456789ab-20261129190000"},
                                   {"namespace", "agents"},
                                   {"labels", snapshot_labels("0123456789ab")}});
    const json& pod = tmpl["spec"]["podTemplate"];
    CHECK(pod["metadata"]["labels"] == json{{"osf.snapshot.of", "0123456789ab"}});
    CHECK(pod["spec"]["volumes"][1]["persistentVolumeClaim"] ==
          json{{"claimName", "osf-snapshot-0123456789ab-20261129190000"}, {"readOnly", true}});
    const json& restore = pod["spec"]["initContainers"][0];
    CHECK(restore["name"] == "osf-restore-workspace");
    CHECK(restore["command"] == json::array({"sh", "-c", "cp -a /osf-snapshot/. /workspace/"}));
    CHECK(restore["volumeMounts"][1] == json{{"name", "workspace"}, {"mountPath", "/workspace"}});
    CHECK(tmpl["spec"]["networkPolicy"] == source["spec"]["networkPolicy"]);
}
