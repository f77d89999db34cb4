// What a person reads when Pod Security admission refuses the sandbox's pod:
// the namespace's level and the fields as the admission message names them,
// and the hint about root mode only when the refusal is about running as root.
#pragma once

#include <string>

namespace osf::kubernetes::manifests {

// `admission_message` is the API server's refusal (one line; it holds
// `violates PodSecurity "<level>:<version>": <fields>`); `has_user`, whether
// the spec names a user (non-root mode). Returns e.g.
// `Pod Security "baseline:latest" forbids hostPath volumes (volume "h")`, or
// the message unchanged when it has no such part, followed by the root-mode
// hint when the fields are about root (runAsNonRoot, runAsUser=0) and the
// spec has no user.
std::string pod_security_refusal(const std::string& admission_message, bool has_user);

} // namespace osf::kubernetes::manifests
