// sandbox-kubernetes allow and revoke: the spec in the sandbox's spec
// ConfigMap, edited (osf/policy_edit.hpp); a running egress proxy applies it
// first (`egress-proxy policy` through kubectl exec into its pod), and only
// then the spec ConfigMap (what resume starts the next proxy from) and the CA
// ConfigMap (the proxy's CA bundle, which may have gained a CA) are patched.
// A suspended sandbox gets the spec ConfigMap only.
#pragma once

#include "kubernetes/operation_context.hpp"
#include "sandbox/policy_changer.hpp"

#include <string>

namespace osf::kubernetes {

sandbox::PolicyChangeResult change_sandbox_policy(OperationContext& context, const std::string& id,
                                                  const osf::policy_edit::Edit& edit,
                                                  const std::string& by);

} // namespace osf::kubernetes
