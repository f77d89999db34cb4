// The security settings of every pod that runs the sandbox's image, in two
// modes: root (Pod Security "baseline": the capabilities a root package
// manager needs, nothing more) and non-root (Pod Security "restricted": the
// spec's `user`, no capabilities). They are laid over a SandboxTemplate's own
// settings and only ever tighten them: what the template drops stays dropped,
// non-root stays non-root, a read-only root stays read-only.
#pragma once

#include "osf/spec.hpp"

#include <nlohmann/json.hpp>
#include <optional>

namespace osf::kubernetes::manifests {

// Root mode adds exactly these back after dropping ALL: what apt, apk or npm -g
// need to install files, switch to their unprivileged user and stop it.
inline constexpr const char* kRootModeCapabilities[] = {
    "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "SETUID", "SETGID", "KILL"};
// The only capability Pod Security "restricted" lets a non-root container add;
// kept when a non-root template adds it, never added by the overlay.
inline constexpr const char* kNonRootCapability = "NET_BIND_SERVICE";

// What the overlay enforces, from the spec and the template's pod.
struct PodHardening {
    std::optional<osf::SandboxUser> user; // the spec's `user`: runAs*, fsGroup
    bool non_root = false;                // every container runs as non-root
    bool read_only_root = false;          // the spec's `readOnlyRoot`
};

// The spec's wishes combined with the template pod's: a pod template whose own
// securityContext already runs as non-root keeps the whole pod non-root.
PodHardening pod_hardening(const osf::Spec& spec, const nlohmann::json& pod_spec);

// Tightens a pod's spec in place: the pod's securityContext, every container's
// and init container's securityContext, no host namespaces or host ports, no
// unconfined AppArmor annotations in `pod_metadata`.
void tighten_pod(nlohmann::json& pod_metadata, nlohmann::json& pod_spec,
                 const PodHardening& hardening);

// The pod-level securityContext: seccomp RuntimeDefault (a Localhost profile is
// kept), and in non-root mode runAsNonRoot with the user's ids and fsGroup.
nlohmann::json tighten_pod_security(nlohmann::json security, const PodHardening& hardening);

// One container's securityContext: no privilege or escalation, capabilities
// drop ALL and add only what both the mode and the template allow, seccomp
// RuntimeDefault, no unmasked /proc, no unconfined AppArmor, runAsNonRoot in
// non-root mode, readOnlyRootFilesystem when asked or already set.
nlohmann::json tighten_container_security(nlohmann::json security, const PodHardening& hardening);

} // namespace osf::kubernetes::manifests
