// Whether a sandbox pod is isolated on the network: its own NetworkPolicy,
// which agent-sandbox's controller makes from its SandboxTemplate (late, or
// not at all when the controller is down or the template says Unmanaged), or
// a default-deny policy of the namespace that takes in every sandbox pod (the
// chart's). create waits for one of them before it reports the sandbox ready;
// doctor looks for the default-deny.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace osf::kubernetes::manifests {

// The NetworkPolicy agent-sandbox makes for the pods of a SandboxTemplate.
std::string template_network_policy_name(const std::string& template_name);

// `policies`: `kubectl get networkpolicies -o json` of the namespace. The name
// of one whose pod selector takes in every sandbox pod (label
// osf.sandbox.role=sandbox; osf.sandbox.id differs from one to the next) and
// that denies their egress unless another policy allows it (policyTypes
// Egress, no egress rule); nullopt when none does.
std::optional<std::string> default_deny_policy(const nlohmann::json& policies);

} // namespace osf::kubernetes::manifests
