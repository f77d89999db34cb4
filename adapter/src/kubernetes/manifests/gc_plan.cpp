#include "kubernetes/manifests/gc_plan.hpp"

#include "kubernetes/manifests/claim_lifetime.hpp"
#include "sandbox/labels.hpp"
#include "sandbox/sandbox_list.hpp"

#include <map>
#include <optional>

namespace osf::kubernetes::manifests {

using nlohmann::json;

namespace {

// "egress pod osf-sandbox-<ID>-egress Failed (DeadlineExceeded)", or empty
// while the pod runs or starts.
std::string ended_pod(const json& pod) {
    const json status = pod.value("status", json::object());
    const std::string phase = status.value("phase", "");
    if (phase != "Failed" && phase != "Succeeded") return "";
    const json metadata = pod.value("metadata", json::object());
    const std::string role =
        metadata.value("labels", json::object()).value(sandbox::kRoleLabel, "");
    std::string text = (role.empty() ? std::string("pod") : role + " pod") + " " +
                       metadata.value("name", "") + " " + phase;
    if (const std::string reason = status.value("reason", ""); !reason.empty())
        text += " (" + reason + ")";
    return text;
}

} // namespace

void GcPlanner::add(const json& item) {
    if (!item.is_object()) return;
    const json metadata = item.value("metadata", json::object());
    if (!metadata.is_object()) return;
    const json labels = metadata.value("labels", json::object());
    const std::string id = labels.is_object() ? labels.value(sandbox::kSandboxIdLabel, "") : "";
    if (id.empty()) return;
    Parts& parts = sandboxes_[id];
    if (const auto created = sandbox::parse_timestamp(metadata.value("creationTimestamp", ""))) {
        const sandbox::WallTime time{std::chrono::seconds(*created)};
        if (!parts.newest || time > *parts.newest) parts.newest = time;
    }
    const std::string kind = item.value("kind", "");
    if (kind == "SandboxClaim") {
        parts.has_claim = true;
        parts.expires = claim_expiry(item);
    } else if (kind == "SandboxWarmPool") {
        parts.has_pool = true;
    } else if (kind == "Pod" && parts.ended_pod.empty()) {
        parts.ended_pod = ended_pod(item);
    }
}

std::vector<GcRemoval> GcPlanner::removals(sandbox::WallTime now,
                                           std::chrono::seconds grace) const {
    std::vector<GcRemoval> removals;
    for (const auto& [id, parts] : sandboxes_) {
        if (parts.has_claim && parts.expires && *parts.expires <= now) {
            removals.push_back({id, "expired at " + sandbox::rfc3339(*parts.expires)});
        } else if (!parts.ended_pod.empty()) {
            removals.push_back({id, parts.ended_pod});
        } else if (!parts.has_claim && parts.newest && *parts.newest + grace <= now) {
            const auto age = std::chrono::duration_cast<std::chrono::seconds>(now - *parts.newest);
            removals.push_back(
                {id, "no SandboxClaim, parts left for " + sandbox::format_age(age.count())});
        } else if (parts.has_claim && !parts.has_pool && parts.newest &&
                   *parts.newest + grace <= now) {
            const auto age = std::chrono::duration_cast<std::chrono::seconds>(now - *parts.newest);
            removals.push_back({id, "create did not finish: no SandboxWarmPool after " +
                                        sandbox::format_age(age.count())});
        }
    }
    return removals;
}

std::vector<GcRemoval> gc_plan(const json& items, sandbox::WallTime now,
                               std::chrono::seconds grace) {
    GcPlanner planner;
    if (items.is_array())
        for (const auto& item : items)
            planner.add(item);
    return planner.removals(now, grace);
}

} // namespace osf::kubernetes::manifests
