#include "sandbox/lifetime.hpp"

#include "osf/duration.hpp"

#include <algorithm>
#include <ctime>

namespace osf::sandbox {

using nlohmann::json;

Lifetime sandbox_lifetime(const std::optional<std::chrono::seconds>& requested,
                          const Settings& settings, WallTime now) {
    const std::chrono::seconds length = requested.value_or(settings.default_lifetime);
    if (length > settings.max_lifetime)
        throw LifetimeError(
            "lifetime " + osf::format_duration(length) + " is longer than the maximum " +
            osf::format_duration(settings.max_lifetime) + " (OSF_SANDBOX_MAX_LIFETIME)");
    Lifetime lifetime;
    lifetime.created = std::chrono::floor<std::chrono::seconds>(now);
    lifetime.expires = lifetime.created + length;
    lifetime.pods_end = std::min(lifetime.expires + settings.extend_window,
                                 lifetime.created + settings.max_lifetime);
    return lifetime;
}

std::string rfc3339(WallTime time) {
    const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

WallTime extended_expiry(std::optional<WallTime> current_expiry, std::optional<WallTime> created,
                         std::chrono::seconds by, std::chrono::seconds max, WallTime now,
                         std::optional<WallTime> pods_end) {
    now = std::chrono::floor<std::chrono::seconds>(now);
    const WallTime current = current_expiry.value_or(now);
    const WallTime expires = (current > now ? current : now) + by;
    if (created && expires > *created + max)
        throw LifetimeError("cannot extend to " + rfc3339(expires) + ": a sandbox lives at most " +
                            osf::format_duration(max) + " (OSF_SANDBOX_MAX_LIFETIME), until " +
                            rfc3339(*created + max));
    if (pods_end && expires > *pods_end)
        throw LifetimeError("cannot extend to " + rfc3339(expires) +
                            ": the kubelet ends this sandbox's pods at " + rfc3339(*pods_end) +
                            " (activeDeadlineSeconds, which Kubernetes never moves later); "
                            "a longer OSF_SANDBOX_EXTEND_WINDOW at create allows more");
    return expires;
}

} // namespace osf::sandbox
