// Reading start-up progress from pod and claim status: pure functions over
// the JSON kubectl prints, so waiting and failure detection are testable
// without a cluster.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace osf::kubernetes::manifests {

// Why a pod will not start: the container, its waiting or terminated reason,
// and Kubernetes' message.
struct StartFailure {
    std::string container;
    std::string reason;
    std::string message;
};

// A failure when any container (init or not) waits for a reason other than
// ContainerCreating or PodInitializing, or has terminated (an init container
// that completed successfully is fine), or the pod's phase is Failed.
std::optional<StartFailure> pod_start_failure(const nlohmann::json& pod);

// Running, with the Ready condition True.
bool pod_ready(const nlohmann::json& pod);

// Why a pending pod waits that waiting may not cure: not scheduled, with
// the PodScheduled condition's reason and message ("not scheduled:
// Unschedulable: 0/3 nodes are available: 3 Insufficient memory."); nullopt
// when it is scheduled or nothing says why.
std::optional<std::string> pod_pending_cause(const nlohmann::json& pod);

// The claims a pod's volumes name (persistentVolumeClaim.claimName), for a
// pod that waits for one to bind.
std::vector<std::string> pod_claim_names(const nlohmann::json& pod);

// "PersistentVolumeClaim NAME is Pending: REASON: MESSAGE" (its phase, and the
// newest Warning of `events`, the Events about it as kubectl lists them, else
// the newest FailedBinding, which the volume controller records as Normal
// though the claim will not bind without a volume or a storage class; without
// either, a pointer to kubectl describe), nullopt when bound.
std::optional<std::string> claim_binding_problem(const nlohmann::json& pvc,
                                                 const nlohmann::json& events);

// The scheduler found no node for the pod: PodScheduled False with reason
// Unschedulable.
bool pod_unschedulable(const nlohmann::json& pod);

// Whether `events` (the Events about a pod, as kubectl lists them) hold the
// cluster autoscaler's TriggeredScaleUp: a node is being added for the pod, so
// Unschedulable is not final.
bool scale_up_triggered(const nlohmann::json& events);

// One short line for progress output: "Pending (ContainerCreating)".
std::string pod_progress(const nlohmann::json& pod);

struct ClaimStatus {
    bool ready = false;
    std::string sandbox_name; // .status.sandbox.name, empty while unknown
    std::string reason;       // the Ready condition's reason, if any
    std::string message;
};

ClaimStatus claim_status(const nlohmann::json& claim);

} // namespace osf::kubernetes::manifests
