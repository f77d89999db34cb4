// create's first object: the SandboxClaim, which carries the sandbox's
// lifecycle (agent-sandbox deletes it at the expiry) and so is the owner of
// everything made after it (kubernetes/manifests/owner_references.hpp).
#pragma once

#include "kubernetes/kubectl/kubectl.hpp"
#include "sandbox/sandbox_request.hpp"

#include <nlohmann/json.hpp>

namespace osf::kubernetes {

// Makes the claim and returns the owner reference to it, with the uid the API
// server gave it. KubectlError when kubectl fails or returns no uid.
// `base_pod_template` gives the claim its image annotation (create_objects.hpp).
nlohmann::json create_claim(kubectl::Kubectl& kube, const sandbox::SandboxRequest& request,
                            const nlohmann::json& base_pod_template);

} // namespace osf::kubernetes
