// The egress side's Secret, made by a kubectl pipeline so that secret values
// never pass through a command line, a file or the adapter's output:
//   kubectl create secret generic ... --dry-run=client -o json
//       --from-file=env.<NAME>=/dev/fd/3 (values on extra pipes)
//       --from-file=file.<name>=<OSF_SECRETS_DIR>/<name> (kubectl reads the file)
//   | kubectl patch --local -f - --type merge -p <labels, owner> -o json
//   | kubectl create -f -
// The Secret is born owned by the SandboxClaim, made before it: at no moment
// does a Secret exist that Kubernetes would not remove with the claim, and
// nothing ever has to read the Secret to patch it (kubectl patch reads the
// object first), so the adapter needs no read verb on Secrets.
#pragma once

#include "kubernetes/kubectl/kubectl.hpp"
#include "sandbox/sandbox_request.hpp"

#include <nlohmann/json.hpp>
#include <vector>

namespace osf::kubernetes {

// The three calls, with the values (from `getenv`) as extra inputs; `owner`
// is the claim's reference (create_claim).
std::vector<kubectl::KubectlCall> secret_creation_calls(const sandbox::SandboxRequest& request,
                                                        const sandbox::EnvLookup& getenv,
                                                        const nlohmann::json& owner);

// Runs them; throws KubectlError naming the stage that failed.
void create_egress_secret(kubectl::Kubectl& kube, const sandbox::SandboxRequest& request,
                          const sandbox::EnvLookup& getenv, const nlohmann::json& owner);

} // namespace osf::kubernetes
