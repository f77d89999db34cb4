// How long a sandbox lives: its expiry as agent-sandbox's SandboxClaim
// lifecycle (shutdownTime, deleted at the deadline even if nothing else
// runs), annotations people and `list` read, the pods' activeDeadlineSeconds
// backstop, and `extend`'s new expiry. Pure: times in, JSON out.
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
// The claim goes at its shutdownTime, and with it (ownerReferences) the rest.
inline constexpr const char* kShutdownPolicy = "Delete";

struct Lifetime {
    WallTime created;
    WallTime expires;
    // OSF_SANDBOX_MAX_LIFETIME: the pods' activeDeadlineSeconds.
    std::chrono::seconds max{0};
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
// created-at / expires-at annotations.
nlohmann::json with_lifetime(nlohmann::json claim, const Lifetime& lifetime);

// A pod spec with activeDeadlineSeconds = the maximum lifetime, or the pod
// template's own when shorter (a template's hardening is kept). Kubernetes
// lets a running pod's deadline only shrink, so it is the backstop `extend`
// can never need to move; the claim's shutdownTime is the real expiry.
nlohmann::json with_pod_deadline(nlohmann::json pod_spec, const Lifetime& lifetime);

// The claim's expiry (its lifecycle.shutdownTime), nullopt when it has none.
std::optional<WallTime> claim_expiry(const nlohmann::json& claim);
// When the sandbox was created: the created-at annotation, else the claim's
// creationTimestamp.
std::optional<WallTime> claim_created(const nlohmann::json& claim);

// `extend`: the expiry moved `by` later (from now if it already passed). Throws
// LifetimeError when that is past created + max, naming the latest allowed.
WallTime extended_expiry(const nlohmann::json& claim, std::chrono::seconds by,
                         std::chrono::seconds max, WallTime now);
// The same from the sandbox's current expiry and creation time (either may be
// unknown), for a backend that keeps them itself.
WallTime extended_expiry(std::optional<WallTime> current, std::optional<WallTime> created,
                         std::chrono::seconds by, std::chrono::seconds max, WallTime now);

// The merge patch that moves a claim's expiry (shutdownTime and annotation).
nlohmann::json expiry_patch(WallTime expires);

} // namespace osf::manifests
