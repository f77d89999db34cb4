// How long a sandbox lives: its expiry as agent-sandbox's SandboxClaim
// lifecycle (shutdownTime, deleted at the deadline even if nothing else
// runs), annotations people and `list` read, the pods' activeDeadlineSeconds
// (the kubelet ends them by itself, whatever state the controllers are in),
// and `extend`'s new expiry. Pure: times in, JSON out.
#pragma once

#include "manifests/settings.hpp"

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>

namespace osf::manifests {

using WallTime = std::chrono::system_clock::time_point;

inline constexpr const char* kCreatedAtAnnotation = "osf.sandbox.created-at";
inline constexpr const char* kExpiresAtAnnotation = "osf.sandbox.expires-at";
// When the kubelet ends the pods: the expiry plus OSF_SANDBOX_EXTEND_WINDOW.
inline constexpr const char* kPodsEndAtAnnotation = "osf.sandbox.pods-end-at";
// The claim goes at its shutdownTime, and with it (ownerReferences) the rest.
inline constexpr const char* kShutdownPolicy = "Delete";

struct Lifetime {
    WallTime created;
    WallTime expires;
    // The pods' deadline: expires + OSF_SANDBOX_EXTEND_WINDOW, at most
    // created + OSF_SANDBOX_MAX_LIFETIME. Kubernetes lets a pod's deadline
    // only move earlier, so `extend` can move the expiry up to here.
    WallTime pods_end;
};

// A lifetime beyond the maximum, or an extension past it (exit 2).
class LifetimeError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The spec's lifetime or OSF_SANDBOX_DEFAULT_LIFETIME, from `now` (whole
// seconds). Throws LifetimeError when it is longer than the maximum.
Lifetime sandbox_lifetime(const std::optional<std::chrono::seconds>& requested,
                          const Settings& settings, WallTime now);

// "2026-12-01T14:00:00Z"; parse_timestamp (sandbox_list.hpp) reads it back.
std::string rfc3339(WallTime time);

// The claim with spec.lifecycle {shutdownTime, shutdownPolicy: Delete} and the
// created-at / expires-at / pods-end-at annotations.
nlohmann::json with_lifetime(nlohmann::json claim, const Lifetime& lifetime);

// A pod spec with activeDeadlineSeconds = pods_end - `now` (at least 1), or
// the pod template's own when shorter (a template's hardening is kept). The
// kubelet counts from the pod's start, so the pod ends at pods_end plus the
// time it took to start.
nlohmann::json with_pod_deadline(nlohmann::json pod_spec, WallTime pods_end, WallTime now);

// The merge patch that bounds the pod a Sandbox makes next (after resume) by
// pods_end, counted from `now`, from the Sandbox as the API server returned it.
nlohmann::json sandbox_deadline_patch(const nlohmann::json& sandbox, WallTime pods_end,
                                      WallTime now);

// The pods' deadline a claim records (its pods-end-at annotation); nullopt
// for a sandbox made before there was one.
std::optional<WallTime> claim_pods_end(const nlohmann::json& claim);

// The claim's expiry (its lifecycle.shutdownTime), nullopt when it has none.
std::optional<WallTime> claim_expiry(const nlohmann::json& claim);
// When the sandbox was created: the created-at annotation, else the claim's
// creationTimestamp.
std::optional<WallTime> claim_created(const nlohmann::json& claim);

// `extend`: the expiry moved `by` later (from now if it already passed). Throws
// LifetimeError when that is past created + max or past the pods' deadline,
// naming the latest allowed.
WallTime extended_expiry(const nlohmann::json& claim, std::chrono::seconds by,
                         std::chrono::seconds max, WallTime now);
// The same from the sandbox's current expiry and creation time (either may be
// unknown), for a backend that keeps them itself (no pods' deadline).
WallTime extended_expiry(std::optional<WallTime> current, std::optional<WallTime> created,
                         std::chrono::seconds by, std::chrono::seconds max, WallTime now,
                         std::optional<WallTime> pods_end = std::nullopt);

// The merge patch that moves a claim's expiry (shutdownTime and annotation).
nlohmann::json expiry_patch(WallTime expires);

} // namespace osf::manifests
