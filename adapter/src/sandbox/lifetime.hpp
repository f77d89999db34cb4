// How long a sandbox lives, whatever runs it: its creation, expiry and the
// pods' (or processes') deadline from the spec and the settings, and
// `extend`'s new expiry. How Kubernetes records and enforces them is
// kubernetes/manifests/claim_lifetime. Pure: times in, times out.
#pragma once

#include "sandbox/settings.hpp"

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>

namespace osf::sandbox {

using WallTime = std::chrono::system_clock::time_point;

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

// `extend`: the expiry moved `by` later (from now if it already passed), from the
// sandbox's current expiry and creation time (either may be unknown). Throws
// LifetimeError when that is past created + max or past the pods' deadline,
// naming the latest allowed.
WallTime extended_expiry(std::optional<WallTime> current, std::optional<WallTime> created,
                         std::chrono::seconds by, std::chrono::seconds max, WallTime now,
                         std::optional<WallTime> pods_end = std::nullopt);

} // namespace osf::sandbox
