// After create has made the claim: every object made before it gets the claim
// as its owner, so that Kubernetes' garbage collector removes them with it.
#pragma once

#include "kubectl/kubectl.hpp"
#include "manifests/sandbox_request.hpp"

namespace osf::commands {

// Reads the claim's uid and patches ownerReferences onto each object of
// manifests::claim_owned_objects. CommandFailed when the claim is gone (its
// lifetime ended, or someone deleted it).
void attach_to_claim(kubectl::Kubectl& kube, const manifests::SandboxRequest& request);

} // namespace osf::commands
