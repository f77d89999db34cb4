// Label keys and values: the cluster holds all state, and every command finds
// a sandbox's objects through these labels.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace osf::sandbox {

inline constexpr const char* kSandboxIdLabel = "osf.sandbox.id";
inline constexpr const char* kRoleLabel = "osf.sandbox.role";
inline constexpr const char* kSnapshotOfLabel = "osf.snapshot.of";
inline constexpr const char* kManagedByLabel = "app.kubernetes.io/managed-by";
inline constexpr const char* kManagedByValue = "sandbox-kubernetes";
// On pods: which part of a sandbox each is (sandbox, egress-proxy, snapshot-copy).
inline constexpr const char* kComponentLabel = "app.kubernetes.io/component";

// On every object Kubernetes' garbage collector removes with the sandbox's
// claim: those create makes owned by the claim, and the pods and volume claims
// made from its template (owned by the claim's Sandbox). gc reads only objects
// without it when it looks for parts whose claim is gone (an earlier
// version's), so the API server, not the adapter, skips the rest.
inline constexpr const char* kOwnedByClaimLabel = "osf.sandbox.owned-by-claim";
inline constexpr const char* kOwnedByClaimValue = "true";

// Values of kRoleLabel: which pod is which, for Services and NetworkPolicies.
inline constexpr const char* kRoleSandbox = "sandbox";
inline constexpr const char* kRoleEgress = "egress";
inline constexpr const char* kRoleSnapshotCopy = "snapshot-copy";

// {osf.sandbox.id: id, app.kubernetes.io/managed-by: sandbox-kubernetes}
nlohmann::json sandbox_labels(const std::string& id);
// sandbox_labels plus the pod's role and app.kubernetes.io/component.
nlohmann::json role_labels(const std::string& id, const std::string& role);

// Why `key`=`value` cannot be a pod label of OSF_SANDBOX_POD_LABELS: not a
// Kubernetes label (a qualified name; a value of at most 63 characters of
// letters, digits, '-', '_', '.'), or one the adapter sets or selects on
// (osf.*, app.kubernetes.io/managed-by and /component, agents.x-k8s.io/*).
std::optional<std::string> pod_label_problem(const std::string& key, const std::string& value);

// `labels` with the user's pod labels added (never over one already there).
nlohmann::json with_pod_labels(nlohmann::json labels,
                               const std::vector<std::pair<std::string, std::string>>& extra);
// {osf.sandbox.id: id, osf.sandbox.role: role}: what selectors match on.
nlohmann::json role_selector(const std::string& id, const std::string& role);

// "osf.sandbox.id=<id>"
std::string id_selector(const std::string& id);
// "osf.sandbox.id=<id>,osf.sandbox.role=<role>"
std::string role_selector_text(const std::string& id, const std::string& role);
// "app.kubernetes.io/managed-by=sandbox-kubernetes"
std::string managed_selector();
// A sandbox's parts that no claim owns: managed, with an ID, without
// kOwnedByClaimLabel.
std::string unowned_parts_selector();

} // namespace osf::sandbox
