#include "sandbox/labels.hpp"

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

namespace {

// 1-63 characters, alphanumeric at both ends, '-', '_', '.' between.
bool label_name(std::string_view text) {
    auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
    if (text.empty() || text.size() > 63 || !alnum(text.front()) || !alnum(text.back()))
        return false;
    for (char c : text)
        if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
    return true;
}

// A DNS subdomain: lower-case labels of letters, digits and '-', dot-separated.
bool dns_subdomain(std::string_view text) {
    if (text.empty() || text.size() > 253) return false;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto end = std::min(text.find('.', start), text.size());
        const std::string_view part = text.substr(start, end - start);
        if (part.empty() || part.size() > 63 || part.front() == '-' || part.back() == '-')
            return false;
        for (char c : part)
            if (!(std::islower(static_cast<unsigned char>(c)) ||
                  std::isdigit(static_cast<unsigned char>(c)) || c == '-'))
                return false;
        start = end + 1;
    }
    return true;
}

} // namespace

std::optional<std::string> pod_label_problem(const std::string& key, const std::string& value) {
    const auto slash = key.find('/');
    const std::string_view prefix =
        slash == std::string::npos ? std::string_view() : std::string_view(key).substr(0, slash);
    const std::string_view name = slash == std::string::npos
                                      ? std::string_view(key)
                                      : std::string_view(key).substr(slash + 1);
    if ((slash != std::string::npos && !dns_subdomain(prefix)) || !label_name(name))
        return "'" + key + "' is not a label key";
    if (!value.empty() && !label_name(value))
        return "the value of " + key + " is not a label value";
    if (key.rfind("osf.", 0) == 0 || key == kManagedByLabel || key == kComponentLabel ||
        prefix == "agents.x-k8s.io" || prefix.ends_with(".agents.x-k8s.io"))
        return key + " is set by sandbox-kubernetes or agent-sandbox";
    return std::nullopt;
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

} // namespace osf::sandbox
