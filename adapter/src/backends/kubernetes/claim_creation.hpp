// create's first object: the SandboxClaim, which carries the sandbox's
// lifecycle (agent-sandbox deletes it at the expiry) and so is the owner of
// everything made after it (manifests/owner_references.hpp).
#pragma once

#include "kubectl/kubectl.hpp"
#include "manifests/sandbox_request.hpp"

#include <nlohmann/json.hpp>

namespace osf::commands {

// Makes the claim and returns the owner reference to it, with the uid the API
// server gave it. KubectlError when kubectl fails or returns no uid.
nlohmann::json create_claim(kubectl::Kubectl& kube, const manifests::SandboxRequest& request);

} // namespace osf::commands
