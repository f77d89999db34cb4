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
    CHECK_FALSE(pvc["spec"].contains("storageClassName")); // the cluster's default
    SnapshotRequest classed = request;
    classed.storage_class = "fast-ssd";
    CHECK(snapshot_pvc(classed)["spec"]["storageClassName"] == "fast-ssd");

    const json copy = snapshot_copy_pod(request);
    CHECK(copy["metadata"]["name"] == "osf-snapshot-0123456789ab-20261129190000-copy");
    CHECK(copy["metadata"]["labels"]["osf.sandbox.id"] ==
          "0123456789ab"); // destroy removes a leftover
    CHECK(copy["spec"]["containers"][0]["image"] == "node:24-alpine");
    CHECK(copy["spec"]["terminationGracePeriodSeconds"] == 0); // sleep ignores SIGTERM
    CHECK(copy["spec"]["containers"][0]["volumeMounts"][0]["mountPath"] == "/data");
    CHECK(copy["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] ==
          "osf-snapshot-0123456789ab-20261129190000");

    const json source = {
        {"metadata", {{"name", "osf-sandbox-0123456789ab"}, {"resourceVersion", "7"}}},
        {"spec",
         {{"podTemplate",
           {{"metadata",
             {{"labels",
               {{"osf.sandbox.id", "0123456789ab"},
                {"osf.sandbox.role", "sandbox"},
                {"osf.sandbox.owned-by-claim", "true"}}}}},
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
    CHECK(restore["command"] == snapshot_restore_command());
    CHECK(restore["volumeMounts"][1] == json{{"name", "workspace"}, {"mountPath", "/workspace"}});
    CHECK(tmpl["spec"]["networkPolicy"] == source["spec"]["networkPolicy"]);
}

TEST_CASE("snapshot copies carry the contents, never the top directory's metadata") {
    // `cp -a /osf-snapshot/. /workspace/` would set /workspace's own times, which a
    // non-root restore may not (the emptyDir's top directory is root's).
    const auto restore = snapshot_restore_command();
    REQUIRE(restore.size() == 3);
    CHECK(restore[2].find("/.") == std::string::npos);
    CHECK(restore[2].find("cd /osf-snapshot && for entry in * .[!.]* ..?*") == 0);
    CHECK(restore[2].find("cp -a \"$entry\" /workspace/ || exit 1") != std::string::npos);
    // The archive's `.` lands in a directory of the copy's own, never on /data.
    const auto unpack = snapshot_unpack_command();
    REQUIRE(unpack.size() == 3);
    CHECK(unpack[2].find("mkdir /data/.osf-unpacking && tar xf - -C /data/.osf-unpacking && ") ==
          0);
    CHECK(unpack[2].find("mv \"$entry\" /data/ || exit 1") != std::string::npos);
    CHECK(unpack[2].find("rmdir /data/.osf-unpacking") != std::string::npos);
    CHECK(snapshot_pack_command() ==
          std::vector<std::string>{"tar", "cf", "-", "-C", "/workspace", "."});
}
