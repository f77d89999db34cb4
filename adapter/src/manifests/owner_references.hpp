// Everything create makes for a sandbox is owned by its SandboxClaim, so that
// when the claim goes (its lifetime ended, destroy, anyone's kubectl delete)
// Kubernetes' garbage collector removes the rest. The egress Secret is the
// exception: it is made owned by the spec ConfigMap (which the claim owns),
// because giving it the claim later would mean `kubectl patch`, which reads
// the Secret first, and nothing of the adapter may read a Secret.
// Snapshots are not owned.
#pragma once

#include "manifests/sandbox_request.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace osf::manifests {

struct OwnedObject {
    std::string resource; // as kubectl names it, fully qualified
    std::string name;
};

// The reference to `claim` (the object as the API server returned it, with
// its uid). Neither controller nor blockOwnerDeletion: the claim does not
// manage these objects, and blockOwnerDeletion would need the extra RBAC verb
// `update sandboxclaims/finalizers` for no gain (nothing waits on them).
nlohmann::json claim_owner_reference(const nlohmann::json& claim);

// The merge patch that gives an object `reference` as its only owner.
nlohmann::json owner_patch(const nlohmann::json& reference);

// The reference to the spec ConfigMap (as the API server returned it, with
// its uid), the egress Secret's owner from the moment it exists.
nlohmann::json config_map_owner_reference(const nlohmann::json& config_map);

// The merge patch kubectl applies locally to the Secret before creating it:
// the sandbox's labels and `owner` as its only owner.
nlohmann::json secret_metadata_patch(const std::string& id, const nlohmann::json& owner);

// What create made before the claim (the claim's sandbox needs them first, so
// they cannot name its uid when made), in creation order; not the Secret.
std::vector<OwnedObject> claim_owned_objects(const SandboxRequest& request);

} // namespace osf::manifests
