// Label keys and values: the cluster holds all state, and every command finds
// a sandbox's objects through these labels.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace osf::manifests {

inline constexpr const char* kSandboxIdLabel = "osf.sandbox.id";
inline constexpr const char* kRoleLabel = "osf.sandbox.role";
inline constexpr const char* kSnapshotOfLabel = "osf.snapshot.of";
inline constexpr const char* kManagedByLabel = "app.kubernetes.io/managed-by";
inline constexpr const char* kManagedByValue = "sandbox-kubernetes";

// Values of kRoleLabel: which pod is which, for Services and NetworkPolicies.
inline constexpr const char* kRoleSandbox = "sandbox";
inline constexpr const char* kRoleEgress = "egress";
inline constexpr const char* kRoleSnapshotCopy = "snapshot-copy";

// {osf.sandbox.id: id, app.kubernetes.io/managed-by: sandbox-kubernetes}
nlohmann::json sandbox_labels(const std::string& id);
// sandbox_labels plus the pod's role.
nlohmann::json role_labels(const std::string& id, const std::string& role);
// {osf.sandbox.id: id, osf.sandbox.role: role}: what selectors match on.
nlohmann::json role_selector(const std::string& id, const std::string& role);

// "osf.sandbox.id=<id>"
std::string id_selector(const std::string& id);
// "osf.sandbox.id=<id>,osf.sandbox.role=<role>"
std::string role_selector_text(const std::string& id, const std::string& role);
// "app.kubernetes.io/managed-by=sandbox-kubernetes"
std::string managed_selector();

} // namespace osf::manifests
