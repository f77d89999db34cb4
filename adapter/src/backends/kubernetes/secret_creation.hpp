// The egress side's Secret, made by a kubectl pipeline so that secret values
// never pass through a command line, a file or the adapter's output:
//   kubectl create secret generic ... --dry-run=client -o json
//       --from-file=env.<NAME>=/dev/fd/3 (values on extra pipes)
//       --from-file=file.<name>=<OSF_SECRETS_DIR>/<name> (kubectl reads the file)
//   | kubectl label --local -f - -o json <labels>
//   | kubectl create -f -
#pragma once

#include "kubectl/kubectl.hpp"
#include "manifests/sandbox_request.hpp"

#include <vector>

namespace osf::commands {

// The three calls, with the values (from `getenv`) as extra inputs.
std::vector<kubectl::KubectlCall> secret_creation_calls(const manifests::SandboxRequest& request,
                                                        const manifests::EnvLookup& getenv);

// Runs them; throws KubectlError naming the stage that failed.
void create_egress_secret(kubectl::Kubectl& kube, const manifests::SandboxRequest& request,
                          const manifests::EnvLookup& getenv);

} // namespace osf::commands
