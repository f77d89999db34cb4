#include "kubernetes/manifests/pod_status.hpp"

namespace osf::kubernetes::manifests {

using nlohmann::json;

namespace {

std::string str(const json& object, const char* key) {
    if (!object.is_object()) return {};
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const json& field(const json& object, const char* key) {
    static const json null;
    if (!object.is_object()) return null;
    const auto it = object.find(key);
    return it != object.end() ? *it : null;
}

std::optional<StartFailure> container_failure(const json& status, bool init) {
    const std::string name = str(status, "name");
    const json& state = field(status, "state");
    const json& waiting = field(state, "waiting");
    if (waiting.is_object()) {
        const std::string reason = str(waiting, "reason");
        if (!reason.empty() && reason != "ContainerCreating" && reason != "PodInitializing")
            return StartFailure{name, reason, str(waiting, "message")};
    }
    const json& terminated = field(state, "terminated");
    if (terminated.is_object()) {
        const int code = field(terminated, "exitCode").is_number_integer()
                             ? field(terminated, "exitCode").get<int>()
                             : -1;
        if (init && code == 0) return std::nullopt;
        std::string reason = str(terminated, "reason");
        if (reason.empty()) reason = "Terminated";
        std::string message = str(terminated, "message");
        const std::string exited = "exited with code " + std::to_string(code);
        message = message.empty() ? exited : exited + ": " + message;
        return StartFailure{name, reason, message};
    }
    return std::nullopt;
}

} // namespace

std::optional<StartFailure> pod_start_failure(const json& pod) {
    const json& status = field(pod, "status");
    for (const auto& [key, init] :
         {std::pair{"initContainerStatuses", true}, std::pair{"containerStatuses", false}}) {
        const json& statuses = field(status, key);
        if (!statuses.is_array()) continue;
        for (const auto& container : statuses)
            if (auto failure = container_failure(container, init)) return failure;
    }
    if (str(status, "phase") == "Failed") {
        std::string reason = str(status, "reason");
        return StartFailure{"-", reason.empty() ? "Failed" : reason, str(status, "message")};
    }
    return std::nullopt;
}

bool pod_ready(const json& pod) {
    const json& status = field(pod, "status");
    if (str(status, "phase") != "Running") return false;
    const json& conditions = field(status, "conditions");
    if (!conditions.is_array()) return false;
    for (const auto& condition : conditions)
        if (str(condition, "type") == "Ready") return str(condition, "status") == "True";
    return false;
}

std::optional<std::string> pod_pending_cause(const json& pod) {
    const json& conditions = field(field(pod, "status"), "conditions");
    if (!conditions.is_array()) return std::nullopt;
    for (const auto& condition : conditions) {
        if (str(condition, "type") != "PodScheduled" || str(condition, "status") != "False")
            continue;
        std::string cause = "not scheduled";
        if (const std::string reason = str(condition, "reason"); !reason.empty())
            cause += ": " + reason;
        if (const std::string message = str(condition, "message"); !message.empty())
            cause += ": " + message;
        return cause;
    }
    return std::nullopt;
}

std::vector<std::string> pod_claim_names(const json& pod) {
    std::vector<std::string> names;
    const json& volumes = field(field(pod, "spec"), "volumes");
    if (!volumes.is_array()) return names;
    for (const auto& volume : volumes) {
        const std::string name = str(field(volume, "persistentVolumeClaim"), "claimName");
        if (!name.empty()) names.push_back(name);
    }
    return names;
}

std::optional<std::string> claim_binding_problem(const json& pvc, const json& events) {
    const std::string phase = str(field(pvc, "status"), "phase");
    if (phase == "Bound") return std::nullopt;
    const std::string name = str(field(pvc, "metadata"), "name");
    const std::string problem = "PersistentVolumeClaim " + name + " is " +
                                (phase.empty() ? std::string("not bound") : phase);
    // The newest Warning (RFC 3339 UTC stamps order as text).
    const json* newest = nullptr;
    const json* binding = nullptr; // the newest Normal FailedBinding
    const json& items = field(events, "items");
    const auto newer = [](const json& event, const json* than) {
        return !than || str(event, "lastTimestamp") >= str(*than, "lastTimestamp");
    };
    if (items.is_array())
        for (const auto& event : items) {
            if (str(event, "type") == "Warning" && newer(event, newest)) newest = &event;
            if (str(event, "reason") == "FailedBinding" && newer(event, binding)) binding = &event;
        }
    if (!newest) newest = binding;
    if (!newest) return problem + " (kubectl describe pvc " + name + " shows its events)";
    return problem + ": " + str(*newest, "reason") + ": " + str(*newest, "message");
}

bool pod_unschedulable(const json& pod) {
    const json& conditions = field(field(pod, "status"), "conditions");
    if (!conditions.is_array()) return false;
    for (const auto& condition : conditions)
        if (str(condition, "type") == "PodScheduled" && str(condition, "status") == "False" &&
            str(condition, "reason") == "Unschedulable")
            return true;
    return false;
}

bool scale_up_triggered(const json& events) {
    const json& items = field(events, "items");
    if (!items.is_array()) return false;
    for (const auto& event : items)
        if (str(event, "reason") == "TriggeredScaleUp") return true;
    return false;
}

std::string pod_progress(const json& pod) {
    const json& status = field(pod, "status");
    std::string phase = str(status, "phase");
    if (phase.empty()) phase = "Pending";
    std::string detail;
    for (const char* key : {"initContainerStatuses", "containerStatuses"}) {
        const json& statuses = field(status, key);
        if (!statuses.is_array()) continue;
        for (const auto& container : statuses) {
            const std::string reason = str(field(field(container, "state"), "waiting"), "reason");
            if (!reason.empty() && detail.empty()) detail = reason;
        }
    }
    if (detail.empty() && phase == "Running" && !pod_ready(pod)) detail = "not ready";
    return detail.empty() ? phase : phase + " (" + detail + ")";
}

ClaimStatus claim_status(const json& claim) {
    ClaimStatus result;
    const json& status = field(claim, "status");
    result.sandbox_name = str(field(status, "sandbox"), "name");
    const json& conditions = field(status, "conditions");
    if (conditions.is_array())
        for (const auto& condition : conditions)
            if (str(condition, "type") == "Ready") {
                result.ready = str(condition, "status") == "True";
                result.reason = str(condition, "reason");
                result.message = str(condition, "message");
            }
    return result;
}

} // namespace osf::kubernetes::manifests
