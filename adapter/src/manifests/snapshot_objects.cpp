#include "manifests/snapshot_objects.hpp"

#include "manifests/labels.hpp"
#include "manifests/names.hpp"
#include "manifests/resources.hpp"
#include "manifests/sandbox_objects.hpp"

namespace osf::manifests {

using nlohmann::json;

json snapshot_labels(const std::string& id) {
    return {{kSnapshotOfLabel, id}, {kManagedByLabel, kManagedByValue}};
}

json snapshot_pvc(const SnapshotRequest& request) {
    return {{"apiVersion", "v1"},
            {"kind", "PersistentVolumeClaim"},
            {"metadata",
             {{"name", snapshot_name(request.id, request.stamp)},
              {"namespace", request.ns},
              {"labels", snapshot_labels(request.id)}}},
            {"spec",
             {{"accessModes", json::array({"ReadWriteOnce"})},
              {"resources", {{"requests", {{"storage", request.size}}}}}}}};
}

json snapshot_copy_pod(const SnapshotRequest& request) {
    json container = {{"name", "copy"},
                      {"image", request.image},
                      {"command", json::array({"sleep", "infinity"})},
                      {"volumeMounts", json::array({json{{"name", kSnapshotVolume},
                                                         {"mountPath", kSnapshotCopyMount}}})},
                      {"securityContext", harden_container_security(json::object())}};
    return {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata",
             {{"name", snapshot_copy_pod_name(request.id, request.stamp)},
              {"namespace", request.ns},
              {"labels", role_labels(request.id, kRoleSnapshotCopy)}}},
            {"spec",
             {{"restartPolicy", "Never"},
              {"automountServiceAccountToken", false},
              {"enableServiceLinks", false},
              {"securityContext", {{"seccompProfile", {{"type", "RuntimeDefault"}}}}},
              {"containers", json::array({container})},
              {"volumes",
               json::array({json{{"name", kSnapshotVolume},
                                 {"persistentVolumeClaim",
                                  {{"claimName", snapshot_name(request.id, request.stamp)}}}}})}}}};
}

json snapshot_template(const json& source, const SnapshotRequest& request) {
    json spec = source.value("spec", json::object());
    json& pod = spec["podTemplate"];
    json& pod_spec = pod["spec"];
    // The sandbox's own labels must not select the copy's pods.
    if (!pod["metadata"].is_object()) pod["metadata"] = json::object();
    if (!pod_spec.is_object()) pod_spec = json::object();
    json labels = pod["metadata"].value("labels", json::object());
    labels.erase(kSandboxIdLabel);
    labels.erase(kRoleLabel);
    labels[kSnapshotOfLabel] = request.id;
    pod["metadata"]["labels"] = labels;

    json volumes = pod_spec.value("volumes", json::array());
    volumes.push_back(
        {{"name", kSnapshotVolume},
         {"persistentVolumeClaim",
          {{"claimName", snapshot_name(request.id, request.stamp)}, {"readOnly", true}}}});
    pod_spec["volumes"] = volumes;
    json restore = {
        {"name", kRestoreContainer},
        {"image", request.image},
        {"command",
         json::array(
             {"sh", "-c", std::string("cp -a ") + kSnapshotMount + "/. " + kWorkspaceDir + "/"})},
        {"volumeMounts",
         json::array(
             {json{{"name", kSnapshotVolume}, {"mountPath", kSnapshotMount}, {"readOnly", true}},
              json{{"name", kWorkspaceVolume}, {"mountPath", kWorkspaceDir}}})},
        {"securityContext", harden_container_security(json::object())}};
    json init = json::array({restore});
    for (const auto& container : pod_spec.value("initContainers", json::array()))
        if (container.value("name", "") != kRestoreContainer) init.push_back(container);
    pod_spec["initContainers"] = init;

    return {{"apiVersion", kApiVersionExtensions},
            {"kind", "SandboxTemplate"},
            {"metadata",
             {{"name", snapshot_name(request.id, request.stamp)},
              {"namespace", request.ns},
              {"labels", snapshot_labels(request.id)}}},
            {"spec", spec}};
}

} // namespace osf::manifests
