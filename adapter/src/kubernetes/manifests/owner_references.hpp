// Everything create makes for a sandbox is owned by its SandboxClaim from the
// moment it exists: create makes the claim first (it carries the sandbox's
// lifecycle, so agent-sandbox deletes it at the expiry) and every other object
// with the claim's reference already in place. When the claim goes (its
// lifetime ended, destroy, anyone's kubectl delete) Kubernetes' garbage
// collector removes the rest, and a create killed at any step leaves nothing
// that outlives the sandbox's expiry. Snapshots are not owned.
#pragma once

#include "sandbox/sandbox_request.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace osf::kubernetes::manifests {

// The reference to `claim` (the object as the API server returned it, with
// its uid). Neither controller nor blockOwnerDeletion: the claim does not
// manage these objects, and blockOwnerDeletion would need the extra RBAC verb
// `update sandboxclaims/finalizers` for no gain (nothing waits on them).
nlohmann::json claim_owner_reference(const nlohmann::json& claim);

// The merge patch that gives an object `reference` as its only owner.
nlohmann::json owner_patch(const nlohmann::json& reference);

// The merge patch kubectl applies locally to the Secret before creating it:
// the sandbox's labels, kOwnedByClaimLabel and `owner` as its only owner.
nlohmann::json secret_metadata_patch(const std::string& id, const nlohmann::json& owner);

// `objects` (a JSON array) with `reference` as each one's only owner, and
// labelled so (sandbox::kOwnedByClaimLabel).
nlohmann::json owned_by(nlohmann::json objects, const nlohmann::json& reference);

} // namespace osf::kubernetes::manifests
