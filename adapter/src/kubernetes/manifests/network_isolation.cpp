#include "kubernetes/manifests/network_isolation.hpp"

#include "sandbox/labels.hpp"

#include <algorithm>

namespace osf::kubernetes::manifests {

using nlohmann::json;

namespace {

// Whether a LabelSelector takes in every sandbox pod: their role label is
// all they are sure to share (osf.sandbox.id differs from one to the next).
bool selects_every_sandbox_pod(const json& selector) {
    if (!selector.is_object()) return false;
    const std::string role_key = sandbox::kRoleLabel;
    const std::string role = sandbox::kRoleSandbox;
    // Named, not iterated as temporaries: items() would outlive the value.
    const json labels = selector.value("matchLabels", json::object());
    const json expressions = selector.value("matchExpressions", json::array());
    if (!labels.is_object() || !expressions.is_array()) return false;
    for (const auto& [key, value] : labels.items())
        if (key != role_key || value != role) return false;
    for (const auto& expression : expressions) {
        if (!expression.is_object()) return false;
        const std::string key = expression.value("key", "");
        const std::string op = expression.value("operator", "");
        const json values = expression.value("values", json::array());
        const bool has_role =
            key == role_key && std::find(values.begin(), values.end(), json(role)) != values.end();
        if (op == "In" && has_role) continue;
        if (op == "Exists" && key == role_key) continue;
        if (op == "NotIn" && key == role_key && !has_role) continue;
        if (op == "DoesNotExist" && key.rfind("osf.sandbox.", 0) != 0 &&
            key != sandbox::kManagedByLabel)
            continue;
        return false;
    }
    return true;
}

bool denies_egress(const json& policy) {
    const json spec = policy.value("spec", json::object());
    const json types = spec.value("policyTypes", json::array());
    if (std::find(types.begin(), types.end(), json("Egress")) == types.end()) return false;
    const json rules = spec.value("egress", json::array());
    return rules.is_null() || (rules.is_array() && rules.empty());
}

} // namespace

std::string template_network_policy_name(const std::string& template_name) {
    return template_name + "-network-policy";
}

std::optional<std::string> default_deny_policy(const json& policies) {
    if (!policies.is_object()) return std::nullopt;
    const json items = policies.value("items", json::array());
    if (!items.is_array()) return std::nullopt;
    for (const auto& policy : items) {
        if (!policy.is_object() || !denies_egress(policy)) continue;
        if (!selects_every_sandbox_pod(
                policy.value("spec", json::object()).value("podSelector", json::object())))
            continue;
        return policy.value("metadata", json::object()).value("name", std::string("?"));
    }
    return std::nullopt;
}

} // namespace osf::kubernetes::manifests
