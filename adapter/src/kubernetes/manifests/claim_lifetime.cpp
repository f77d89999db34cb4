#include "kubernetes/manifests/claim_lifetime.hpp"

#include "sandbox/sandbox_list.hpp"

#include <algorithm>

namespace osf::kubernetes::manifests {

using nlohmann::json;
using sandbox::extended_expiry;
using sandbox::Lifetime;
using sandbox::LifetimeError;
using sandbox::rfc3339;
using sandbox::WallTime;

namespace {

std::optional<WallTime> time_from(const std::string& text) {
    const auto seconds = sandbox::parse_timestamp(text);
    if (!seconds) return std::nullopt;
    return WallTime(std::chrono::seconds(*seconds));
}

} // namespace

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

json sandbox_deadline_patch(const json& sandbox_object, WallTime pods_end, WallTime now) {
    const json pod_spec = sandbox_object.value("spec", json::object())
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

json expiry_patch(WallTime expires) {
    return {{"metadata", {{"annotations", {{kExpiresAtAnnotation, rfc3339(expires)}}}}},
            {"spec", {{"lifecycle", {{"shutdownTime", rfc3339(expires)}}}}}};
}

} // namespace osf::kubernetes::manifests
