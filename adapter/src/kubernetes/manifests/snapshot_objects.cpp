#include "kubernetes/manifests/snapshot_objects.hpp"

#include "kubernetes/manifests/names.hpp"
#include "kubernetes/manifests/pod_security.hpp"
#include "kubernetes/manifests/resources.hpp"
#include "kubernetes/manifests/sandbox_objects.hpp"
#include "sandbox/labels.hpp"

namespace osf::kubernetes::manifests {

using nlohmann::json;

namespace {

// The securityContext for a container of ours that runs the sandbox's image:
// the sandbox container's own, or root mode's when it had none.
json container_security_of(const SnapshotRequest& request) {
    if (request.container_security.is_object() && !request.container_security.empty())
        return request.container_security;
    return tighten_container_security(json::object(), PodHardening{});
}

} // namespace

namespace {

// A loop over a directory's entries, dot files included, `.` and `..` not:
// the globs that match nothing stay as they are and are skipped.
std::string for_each_entry(const std::string& body) {
    return "for entry in * .[!.]* ..?*; do if [ -e \"$entry\" ] || [ -L \"$entry\" ]; then " +
           body + " || exit 1; fi; done";
}

} // namespace

std::vector<std::string> snapshot_pack_command() {
    return {"tar", "cf", "-", "-C", sandbox::kWorkspaceDir, "."};
}

std::vector<std::string> snapshot_unpack_command() {
    // Unpacked into a directory the copy's user makes (the archive's `.`
    // lands there), then each entry moved up: rename keeps its metadata.
    const std::string to = kSnapshotCopyMount;
    const std::string in = to + "/" + kSnapshotUnpackDir;
    return {"sh", "-c",
            "mkdir " + in + " && tar xf - -C " + in + " && cd " + in + " && " +
                for_each_entry("mv \"$entry\" " + to + "/") + " && cd / && rmdir " + in};
}

std::vector<std::string> snapshot_restore_command() {
    return {"sh", "-c",
            std::string("cd ") + kSnapshotMount + " && " +
                for_each_entry(std::string("cp -a \"$entry\" ") + sandbox::kWorkspaceDir + "/")};
}

void take_sandbox_pod_settings(const json& sandbox_template, SnapshotRequest& request) {
    const json pod_spec = sandbox_template.value("spec", json::object())
                              .value("podTemplate", json::object())
                              .value("spec", json::object());
    request.pod_security = pod_spec.value("securityContext", json::object());
    const json containers = pod_spec.value("containers", json::array());
    if (containers.empty() || !containers[0].is_object()) return;
    request.image = containers[0].value("image", "");
    request.container_security = containers[0].value("securityContext", json::object());
}

json snapshot_labels(const std::string& id) {
    return {{sandbox::kSnapshotOfLabel, id}, {sandbox::kManagedByLabel, sandbox::kManagedByValue}};
}

json snapshot_pvc(const SnapshotRequest& request) {
    json pvc = {{"apiVersion", "v1"},
                {"kind", "PersistentVolumeClaim"},
                {"metadata",
                 {{"name", snapshot_name(request.id, request.stamp)},
                  {"namespace", request.ns},
                  {"labels", snapshot_labels(request.id)}}},
                {"spec",
                 {{"accessModes", json::array({"ReadWriteOnce"})},
                  {"resources", {{"requests", {{"storage", request.size}}}}}}}};
    if (request.storage_class) pvc["spec"]["storageClassName"] = *request.storage_class;
    return pvc;
}

json snapshot_copy_pod(const SnapshotRequest& request) {
    json container = {{"name", "copy"},
                      {"image", request.image},
                      {"command", json::array({"sleep", "infinity"})},
                      {"volumeMounts", json::array({json{{"name", kSnapshotVolume},
                                                         {"mountPath", kSnapshotCopyMount}}})},
                      {"securityContext", container_security_of(request)}};
    if (request.image_pull_policy) container["imagePullPolicy"] = *request.image_pull_policy;
    return {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata",
             {{"name", snapshot_copy_pod_name(request.id, request.stamp)},
              {"namespace", request.ns},
              {"labels", sandbox::role_labels(request.id, sandbox::kRoleSnapshotCopy)}}},
            {"spec",
             {{"restartPolicy", "Never"},
              // `sleep` as PID 1 ignores SIGTERM: the copy, done, would hold
              // the snapshot's deletion for the default 30 s grace period.
              {"terminationGracePeriodSeconds", 0},
              {"automountServiceAccountToken", false},
              {"enableServiceLinks", false},
              {"securityContext", tighten_pod_security(request.pod_security, PodHardening{})},
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
    labels.erase(sandbox::kSandboxIdLabel);
    labels.erase(sandbox::kRoleLabel);
    labels.erase(sandbox::kOwnedByClaimLabel); // a snapshot has no owner
    labels[sandbox::kSnapshotOfLabel] = request.id;
    pod["metadata"]["labels"] = labels;

    // What the source's spec put in its environment belongs to the source.
    remove_overlay_env(pod);
    if (pod["metadata"].contains("annotations") && pod["metadata"]["annotations"].is_object())
        pod["metadata"]["annotations"].erase(kEnvNamesAnnotation);

    json volumes = pod_spec.value("volumes", json::array());
    volumes.push_back(
        {{"name", kSnapshotVolume},
         {"persistentVolumeClaim",
          {{"claimName", snapshot_name(request.id, request.stamp)}, {"readOnly", true}}}});
    pod_spec["volumes"] = volumes;
    json restore = {
        {"name", kRestoreContainer},
        {"image", request.image},
        {"command", snapshot_restore_command()},
        {"volumeMounts",
         json::array(
             {json{{"name", kSnapshotVolume}, {"mountPath", kSnapshotMount}, {"readOnly", true}},
              json{{"name", kWorkspaceVolume}, {"mountPath", sandbox::kWorkspaceDir}}})},
        {"securityContext", container_security_of(request)}};
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

json with_restore_as_sandbox(json sandbox_template) {
    // Looked up without operator[]: a template without a restore stays as it is.
    const json::json_pointer at("/spec/podTemplate/spec");
    if (!sandbox_template.contains(at)) return sandbox_template;
    json& pod_spec = sandbox_template[at];
    if (!pod_spec.is_object() || !pod_spec.contains("initContainers") ||
        !pod_spec["initContainers"].is_array() || !pod_spec.contains("containers") ||
        !pod_spec["containers"].is_array() || pod_spec["containers"].empty() ||
        !pod_spec["containers"][0].is_object())
        return sandbox_template;
    const json& sandbox = pod_spec["containers"][0];
    json workspace = nullptr;
    for (const auto& mount : sandbox.value("volumeMounts", json::array()))
        if (mount.is_object() && mount.value("mountPath", "") == sandbox::kWorkspaceDir)
            workspace = mount;
    for (auto& init : pod_spec["initContainers"]) {
        if (!init.is_object() || init.value("name", "") != kRestoreContainer) continue;
        init["securityContext"] = sandbox.value("securityContext", json::object());
        if (!workspace.is_object() || !init.contains("volumeMounts") ||
            !init["volumeMounts"].is_array())
            continue;
        for (auto& mount : init["volumeMounts"]) {
            if (!mount.is_object() || mount.value("mountPath", "") != sandbox::kWorkspaceDir)
                continue;
            mount["name"] = workspace["name"];
            if (workspace.contains("subPath"))
                mount["subPath"] = workspace["subPath"];
            else
                mount.erase("subPath");
        }
    }
    return sandbox_template;
}

} // namespace osf::kubernetes::manifests
