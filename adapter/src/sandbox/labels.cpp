#include "sandbox/labels.hpp"

#include "osf/label_syntax.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace osf::sandbox {

nlohmann::json sandbox_labels(const std::string& id) {
    return {{kSandboxIdLabel, id}, {kManagedByLabel, kManagedByValue}};
}

nlohmann::json role_labels(const std::string& id, const std::string& role) {
    auto labels = sandbox_labels(id);
    labels[kRoleLabel] = role;
    labels[kComponentLabel] = role == kRoleEgress ? std::string("egress-proxy") : role;
    return labels;
}

std::optional<std::string> pod_label_problem(const std::string& key, const std::string& value) {
    // The same rules as a sandbox's own labels (the spec's `labels`, `--label`).
    return osf::user_label_problem(key, value);
}

nlohmann::json with_pod_labels(nlohmann::json labels,
                               const std::vector<std::pair<std::string, std::string>>& extra) {
    for (const auto& [key, value] : extra)
        if (!labels.contains(key)) labels[key] = value;
    return labels;
}

nlohmann::json role_selector(const std::string& id, const std::string& role) {
    return {{kSandboxIdLabel, id}, {kRoleLabel, role}};
}

std::string id_selector(const std::string& id) {
    return std::string(kSandboxIdLabel) + "=" + id;
}

std::string role_selector_text(const std::string& id, const std::string& role) {
    return id_selector(id) + "," + kRoleLabel + "=" + role;
}

std::string managed_selector() {
    return std::string(kManagedByLabel) + "=" + kManagedByValue;
}

std::string unowned_parts_selector() {
    return managed_selector() + "," + kSandboxIdLabel + ",!" + kOwnedByClaimLabel;
}

} // namespace osf::sandbox
