// Fully qualified resource names for kubectl, so that a same-named resource
// of another API group can never be picked by mistake. With their version
// (resource.version.group): kubectl reads a dotted name first as that, and
// when `resource.group` does not resolve so (as `agents` is no version of
// `x-k8s.io`), it throws away its discovery cache and fetches discovery again,
// two more requests on every call.
#pragma once

#include <string>
#include <vector>

namespace osf::kubernetes::manifests {

inline constexpr const char* kSandboxClaims = "sandboxclaims.v1beta1.extensions.agents.x-k8s.io";
inline constexpr const char* kSandboxTemplates =
    "sandboxtemplates.v1beta1.extensions.agents.x-k8s.io";
inline constexpr const char* kSandboxWarmPools =
    "sandboxwarmpools.v1beta1.extensions.agents.x-k8s.io";
inline constexpr const char* kSandboxes = "sandboxes.v1beta1.agents.x-k8s.io";
inline constexpr const char* kPods = "pods";
inline constexpr const char* kPersistentVolumeClaims = "persistentvolumeclaims";
inline constexpr const char* kConfigMaps = "configmaps";
inline constexpr const char* kNetworkPolicies = "networkpolicies.v1.networking.k8s.io";

// Everything create makes but the Secret, in the order destroy removes it: the
// claim first so the controller does not recreate the sandbox while the rest
// goes. destroy and gc learn what exists from these; the Secret, which nothing
// of the adapter may read (not even list), is deleted by its name.
inline constexpr const char* kSandboxResources =
    "sandboxclaims.v1beta1.extensions.agents.x-k8s.io,sandboxwarmpools.v1beta1.extensions.agents.x-"
    "k8s.io,"
    "sandboxes.v1beta1.agents.x-k8s.io,sandboxtemplates.v1beta1.extensions.agents.x-k8s.io,pods,"
    "services,"
    "networkpolicies.v1.networking.k8s.io,configmaps,persistentvolumeclaims";
inline constexpr const char* kSecrets = "secrets";

// The kinds of kSandboxResources but the claim and the warm pool, which gc
// reads whole: where it looks for parts no claim owns.
inline constexpr const char* kSandboxPartResources =
    "sandboxes.v1beta1.agents.x-k8s.io,sandboxtemplates.v1beta1.extensions.agents.x-k8s.io,pods,"
    "services,networkpolicies.v1.networking.k8s.io,configmaps,persistentvolumeclaims";

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
