#include "kubernetes/manifests/persistence.hpp"

#include "kubernetes/manifests/sandbox_objects.hpp"
#include "kubernetes/manifests/sandbox_storage.hpp"
#include "sandbox/labels.hpp"

#include <algorithm>

namespace osf::kubernetes::manifests {

using nlohmann::json;

namespace {

bool names(const json& item, const std::string& name) {
    return item.is_object() && item.value("name", "") == name;
}

} // namespace

json with_persistence(json sandbox_template, const sandbox::SandboxRequest& request) {
    if (!request.spec.persistence) return sandbox_template;
    const auto& persistence = *request.spec.persistence;
    json claim_spec = {{"accessModes", json::array({"ReadWriteOnce"})},
                       {"resources", {{"requests", {{"storage", persistence.size}}}}}};
    if (persistence.storage_class) claim_spec["storageClassName"] = *persistence.storage_class;
    json& spec = sandbox_template["spec"];
    // The volume claim made from it is owned by the claim's Sandbox.
    json labels = sandbox::sandbox_labels(request.id);
    labels[sandbox::kOwnedByClaimLabel] = sandbox::kOwnedByClaimValue;
    spec["volumeClaimTemplates"] = json::array({json{
        {"metadata", {{"name", kWorkspaceVolume}, {"labels", labels}}}, {"spec", claim_spec}}});

    json& pod_spec = spec["podTemplate"]["spec"];
    // agent-sandbox adds a volume of the template's name on the claim.
    json& volumes = pod_spec["volumes"];
    if (volumes.is_array())
        volumes.erase(std::remove_if(volumes.begin(), volumes.end(),
                                     [](const json& v) {
                                         return names(v, kWorkspaceVolume) || names(v, kHomeVolume);
                                     }),
                      volumes.end());
    json& container = pod_spec["containers"][0];
    json mounts = json::array();
    for (const auto& mount : container.value("volumeMounts", json::array()))
        if (mount.value("mountPath", "") != sandbox::kWorkspaceDir &&
            mount.value("mountPath", "") != kHomeDir)
            mounts.push_back(mount);
    mounts.push_back({{"name", kWorkspaceVolume},
                      {"mountPath", sandbox::kWorkspaceDir},
                      {"subPath", kWorkspaceSubPath}});
    mounts.push_back(
        {{"name", kWorkspaceVolume}, {"mountPath", kHomeDir}, {"subPath", kHomeSubPath}});
    container["volumeMounts"] = mounts;
    if (!request.spec.env.count("HOME")) {
        json env = container.value("env", json::array());
        env.erase(std::remove_if(env.begin(), env.end(),
                                 [](const json& var) { return names(var, "HOME"); }),
                  env.end());
        env.push_back({{"name", "HOME"}, {"value", kHomeDir}});
        container["env"] = env;
    }
    return sandbox_template;
}

json with_workspace_volume(json pod_template) {
    json& spec = pod_template["spec"];
    json& volumes = spec["volumes"];
    if (!volumes.is_array()) volumes = json::array();
    if (!spec["containers"].is_array() || spec["containers"].empty()) return pod_template;
    for (const auto& mount : spec["containers"][0].value("volumeMounts", json::array())) {
        if (mount.value("mountPath", "") != sandbox::kWorkspaceDir) continue;
        const std::string name = mount.value("name", "");
        const bool present = std::any_of(volumes.begin(), volumes.end(),
                                         [&](const json& v) { return names(v, name); });
        if (!present) volumes.push_back({{"name", name}, {"emptyDir", json::object()}});
    }
    return pod_template;
}

bool has_persistent_workspace(const json& object) {
    const json templates =
        object.value("spec", json::object()).value("volumeClaimTemplates", json::array());
    return std::any_of(templates.begin(), templates.end(), [](const json& t) {
        return t.is_object() &&
               t.value("metadata", json::object()).value("name", "") == kWorkspaceVolume;
    });
}

} // namespace osf::kubernetes::manifests
