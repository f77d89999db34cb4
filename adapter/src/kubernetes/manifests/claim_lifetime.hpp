// How Kubernetes keeps a sandbox's lifetime: agent-sandbox's SandboxClaim
// lifecycle (shutdownTime, deleted at the deadline even if nothing else
// runs), annotations people and `list` read, the pods' activeDeadlineSeconds
// (the kubelet ends them by itself, whatever state the controllers are in),
// and `extend`'s patch. Pure: times in, JSON out.
#pragma once

#include "sandbox/lifetime.hpp"

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>

namespace osf::kubernetes::manifests {

inline constexpr const char* kCreatedAtAnnotation = "osf.sandbox.created-at";
inline constexpr const char* kExpiresAtAnnotation = "osf.sandbox.expires-at";
// When the kubelet ends the pods: the expiry plus OSF_SANDBOX_EXTEND_WINDOW.
inline constexpr const char* kPodsEndAtAnnotation = "osf.sandbox.pods-end-at";
// The claim goes at its shutdownTime, and with it (ownerReferences) the rest.
inline constexpr const char* kShutdownPolicy = "Delete";

// The claim with spec.lifecycle {shutdownTime, shutdownPolicy: Delete} and the
// created-at / expires-at / pods-end-at annotations.
nlohmann::json with_lifetime(nlohmann::json claim, const sandbox::Lifetime& lifetime);

// A pod spec with activeDeadlineSeconds = pods_end - `now` (at least 1), or
// the pod template's own when shorter (a template's hardening is kept). The
// kubelet counts from the pod's start, so the pod ends at pods_end plus the
// time it took to start.
nlohmann::json with_pod_deadline(nlohmann::json pod_spec, sandbox::WallTime pods_end,
                                 sandbox::WallTime now);

// The merge patch that bounds the pod a Sandbox makes next (after resume) by
// pods_end, counted from `now`, from the Sandbox as the API server returned it.
nlohmann::json sandbox_deadline_patch(const nlohmann::json& sandbox_object,
                                      sandbox::WallTime pods_end, sandbox::WallTime now);

// The pods' deadline a claim records (its pods-end-at annotation); nullopt
// for a sandbox made before there was one.
std::optional<sandbox::WallTime> claim_pods_end(const nlohmann::json& claim);

// The claim's expiry (its lifecycle.shutdownTime), nullopt when it has none.
std::optional<sandbox::WallTime> claim_expiry(const nlohmann::json& claim);
// When the sandbox was created: the created-at annotation, else the claim's
// creationTimestamp.
std::optional<sandbox::WallTime> claim_created(const nlohmann::json& claim);

// `extend`: the expiry moved `by` later (from now if it already passed). Throws
// LifetimeError when that is past created + max or past the pods' deadline,
// naming the latest allowed.
sandbox::WallTime extended_expiry(const nlohmann::json& claim, std::chrono::seconds by,
                                  std::chrono::seconds max, sandbox::WallTime now);
// The merge patch that moves a claim's expiry (shutdownTime and annotation).
nlohmann::json expiry_patch(sandbox::WallTime expires);

} // namespace osf::kubernetes::manifests
