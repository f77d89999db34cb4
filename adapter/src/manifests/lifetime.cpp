#include "manifests/lifetime.hpp"

#include "manifests/sandbox_list.hpp"
#include "osf/duration.hpp"

#include <algorithm>
#include <ctime>

namespace osf::manifests {

using nlohmann::json;

namespace {

std::optional<WallTime> time_from(const std::string& text) {
    const auto seconds = parse_timestamp(text);
    if (!seconds) return std::nullopt;
    return WallTime(std::chrono::seconds(*seconds));
}

} // namespace

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

json with_lifetime(json claim, const Lifetime& lifetime) {
    auto& annotations = claim["metadata"]["annotations"];
    annotations[kCreatedAtAnnotation] = rfc3339(lifetime.created);
    annotations[kExpiresAtAnnotation] = rfc3339(lifetime.expires);
    annotations[kPodsEndAtAnnotation] = rfc3339(lifetime.pods_end);
    claim["spec"]["lifecycle"] = {{"shutdownTime", rfc3339(lifetime.expires)},
                                  {"shutdownPolicy", kShutdownPolicy}};
    return claim;
}

json with_pod_deadline(json pod_spec, WallTime pods_end, WallTime now) {
    const auto left = std::chrono::ceil<std::chrono::seconds>(pods_end - now).count();
    const std::int64_t deadline = left > 0 ? left : 1;
    // A template's own shorter deadline stays.
    const json& own =
        pod_spec.contains("activeDeadlineSeconds") ? pod_spec["activeDeadlineSeconds"] : json();
    if (own.is_number_integer() && own.get<std::int64_t>() > 0 &&
        own.get<std::int64_t>() < deadline)
        return pod_spec;
    pod_spec["activeDeadlineSeconds"] = deadline;
    return pod_spec;
}

json sandbox_deadline_patch(const json& sandbox, WallTime pods_end, WallTime now) {
    const json pod_spec = sandbox.value("spec", json::object())
                              .value("podTemplate", json::object())
                              .value("spec", json::object());
    const json bounded = with_pod_deadline(pod_spec, pods_end, now);
    return {{"spec",
             {{"podTemplate",
               {{"spec", {{"activeDeadlineSeconds", bounded["activeDeadlineSeconds"]}}}}}}}};
}

std::optional<WallTime> claim_pods_end(const json& claim) {
    return time_from(claim.value("metadata", json::object())
                         .value("annotations", json::object())
                         .value(kPodsEndAtAnnotation, ""));
}

std::optional<WallTime> claim_expiry(const json& claim) {
    const json lifecycle = claim.value("spec", json::object()).value("lifecycle", json::object());
    return time_from(lifecycle.value("shutdownTime", ""));
}

std::optional<WallTime> claim_created(const json& claim) {
    const json metadata = claim.value("metadata", json::object());
    if (auto created = time_from(
            metadata.value("annotations", json::object()).value(kCreatedAtAnnotation, "")))
        return created;
    return time_from(metadata.value("creationTimestamp", ""));
}

WallTime extended_expiry(const json& claim, std::chrono::seconds by, std::chrono::seconds max,
                         WallTime now) {
    return extended_expiry(claim_expiry(claim), claim_created(claim), by, max, now,
                           claim_pods_end(claim));
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

json expiry_patch(WallTime expires) {
    return {{"metadata", {{"annotations", {{kExpiresAtAnnotation, rfc3339(expires)}}}}},
            {"spec", {{"lifecycle", {{"shutdownTime", rfc3339(expires)}}}}}};
}

} // namespace osf::manifests
