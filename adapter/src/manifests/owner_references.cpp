#include "manifests/owner_references.hpp"

#include "manifests/labels.hpp"
#include "manifests/names.hpp"
#include "manifests/resources.hpp"

namespace osf::manifests {

using nlohmann::json;

json claim_owner_reference(const json& claim) {
    const json metadata = claim.value("metadata", json::object());
    return {{"apiVersion", kApiVersionExtensions},
            {"kind", "SandboxClaim"},
            {"name", metadata.value("name", "")},
            {"uid", metadata.value("uid", "")}};
}

json owner_patch(const json& reference) {
    return {{"metadata", {{"ownerReferences", json::array({reference})}}}};
}

json config_map_owner_reference(const json& config_map) {
    const json metadata = config_map.value("metadata", json::object());
    return {{"apiVersion", "v1"},
            {"kind", "ConfigMap"},
            {"name", metadata.value("name", "")},
            {"uid", metadata.value("uid", "")}};
}

json secret_metadata_patch(const std::string& id, const json& owner) {
    json patch = owner_patch(owner);
    patch["metadata"]["labels"] = sandbox_labels(id);
    return patch;
}

std::vector<OwnedObject> claim_owned_objects(const SandboxRequest& request) {
    const std::string& id = request.id;
    std::vector<OwnedObject> objects;
    objects.push_back({"configmaps", spec_config_name(id)});
    objects.push_back({kPods, egress_name(id)});
    objects.push_back({"services", egress_name(id)});
    objects.push_back({"networkpolicies.networking.k8s.io", egress_name(id)});
    objects.push_back({"configmaps", ca_config_name(id)});
    objects.push_back({kSandboxTemplates, sandbox_name(id)});
    objects.push_back({kSandboxWarmPools, sandbox_name(id)});
    return objects;
}

} // namespace osf::manifests
