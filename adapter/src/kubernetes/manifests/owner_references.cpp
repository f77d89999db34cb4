#include "kubernetes/manifests/owner_references.hpp"

#include "kubernetes/manifests/resources.hpp"
#include "sandbox/labels.hpp"

namespace osf::kubernetes::manifests {

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

json secret_metadata_patch(const std::string& id, const json& owner) {
    json patch = owner_patch(owner);
    patch["metadata"]["labels"] = sandbox::sandbox_labels(id);
    patch["metadata"]["labels"][sandbox::kOwnedByClaimLabel] = sandbox::kOwnedByClaimValue;
    return patch;
}

json owned_by(json objects, const json& reference) {
    for (auto& object : objects) {
        object["metadata"]["ownerReferences"] = json::array({reference});
        object["metadata"]["labels"][sandbox::kOwnedByClaimLabel] = sandbox::kOwnedByClaimValue;
    }
    return objects;
}

} // namespace osf::kubernetes::manifests
