// Fully qualified resource names for kubectl, so that a same-named resource
// of another API group can never be picked by mistake.
#pragma once

#include <string>
#include <vector>

namespace osf::kubernetes::manifests {

inline constexpr const char* kSandboxClaims = "sandboxclaims.extensions.agents.x-k8s.io";
inline constexpr const char* kSandboxTemplates = "sandboxtemplates.extensions.agents.x-k8s.io";
inline constexpr const char* kSandboxWarmPools = "sandboxwarmpools.extensions.agents.x-k8s.io";
inline constexpr const char* kSandboxes = "sandboxes.agents.x-k8s.io";
inline constexpr const char* kPods = "pods";
inline constexpr const char* kPersistentVolumeClaims = "persistentvolumeclaims";
inline constexpr const char* kConfigMaps = "configmaps";
inline constexpr const char* kNetworkPolicies = "networkpolicies.networking.k8s.io";

// Everything create makes but the Secret, in the order destroy removes it: the
// claim first so the controller does not recreate the sandbox while the rest
// goes. destroy and gc learn what exists from these; the Secret, which nothing
// of the adapter may read (not even list), is deleted by its name.
inline constexpr const char* kSandboxResources =
    "sandboxclaims.extensions.agents.x-k8s.io,sandboxwarmpools.extensions.agents.x-k8s.io,"
    "sandboxes.agents.x-k8s.io,sandboxtemplates.extensions.agents.x-k8s.io,pods,services,"
    "networkpolicies.networking.k8s.io,configmaps,persistentvolumeclaims";
inline constexpr const char* kSecrets = "secrets";

// Every object create, suspend and snapshot make for sandbox `id` under a
// name known from the ID, as kubectl's "resource/name" arguments, apart from
// the Secret, the claim and the Sandbox (destroy deletes those first, one by
// one). Deleting these by name costs the same whatever the namespace holds; a
// label-selected delete makes the API server read every object of each kind.
// What has no name known from the ID (the workspace claim of `persistence`,
// a snapshot's copy pod) is owned by the claim or the Sandbox, and goes with
// them.
std::vector<std::string> named_sandbox_objects(const std::string& id);

inline constexpr const char* kApiVersionExtensions = "extensions.agents.x-k8s.io/v1beta1";

} // namespace osf::kubernetes::manifests
