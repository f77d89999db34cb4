// After `allow` gives the proxy a new CA (a host its CAs' name constraints
// did not cover), the CA ConfigMap holds it at once, but the sandbox's
// mounted copy changes only when the kubelet next syncs the pod's ConfigMap
// volumes (about a minute). Until then HTTPS to the new host fails in the
// sandbox, so allow waits here until the sandbox reads the new certificate.
#pragma once

#include "kubernetes/kubectl/kubectl.hpp"
#include "kubernetes/operation_context.hpp"

#include <chrono>
#include <string>

namespace osf::kubernetes {

// The kubelet's default sync period (1 min) plus its ConfigMap cache and
// jitter: the longest the refresh takes on a default kubelet.
inline constexpr std::chrono::seconds kCaRefreshTimeout{150};

// Whether `after` (a PEM bundle) holds a certificate `before` lacks: only
// then does the sandbox need the new bundle before a host works (a bundle
// that lost a CA, after a revoke, needs no wait: the proxy refuses anyway).
bool adds_certificate(const std::string& before, const std::string& after);

// Returns once `certificate` is what the sandbox pod's CA file holds; says
// on context.err, once, what it waits for. CommandFailed naming what is in
// force and what is not when `timeout` passes first.
void wait_until_sandbox_trusts(OperationContext& context, kubectl::Kubectl& kube,
                               const std::string& id, const std::string& certificate,
                               std::chrono::seconds timeout = kCaRefreshTimeout);

} // namespace osf::kubernetes
