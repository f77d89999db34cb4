#include "manifests/labels.hpp"

namespace osf::manifests {

nlohmann::json sandbox_labels(const std::string& id) {
    return {{kSandboxIdLabel, id}, {kManagedByLabel, kManagedByValue}};
}

nlohmann::json role_labels(const std::string& id, const std::string& role) {
    auto labels = sandbox_labels(id);
    labels[kRoleLabel] = role;
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

} // namespace osf::manifests
