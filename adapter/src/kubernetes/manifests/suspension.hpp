// Suspend and resume, agent-sandbox v1beta1: the Sandbox's
// spec.operatingMode (Running | Suspended) stops and restarts its pod while
// its volume claims stay. The egress pod is stopped too; its manifest is kept
// in a ConfigMap so resume can start the same proxy again (a new CA, which
// resume writes into the CA ConfigMap before the sandbox pod starts). Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace osf::kubernetes::manifests {

inline constexpr const char* kOperatingModeRunning = "Running";
inline constexpr const char* kOperatingModeSuspended = "Suspended";
inline constexpr const char* kSavedPodKey = "pod.json";
// On the claim while the sandbox is suspended (RFC 3339): what `list` shows.
inline constexpr const char* kSuspendedAtAnnotation = "osf.sandbox.suspended-at";

// The ConfigMap that keeps a suspended sandbox's egress pod manifest.
inline std::string saved_egress_pod_name(const std::string& id) {
    return "osf-sandbox-" + id + "-egress-pod";
}

// {"spec": {"operatingMode": "Running" | "Suspended"}}
nlohmann::json operating_mode_patch(bool running);
bool sandbox_suspended(const nlohmann::json& sandbox);

// The live egress pod as a ConfigMap (same labels and owner), its manifest
// without what the cluster filled in (uid, status, node, defaults kept).
nlohmann::json saved_egress_pod(const nlohmann::json& pod, const std::string& id);
// The pod to create again from that ConfigMap.
nlohmann::json egress_pod_from_saved(const nlohmann::json& config_map);

// The claim's merge patch: the suspended-at annotation set, or removed (null).
nlohmann::json suspended_patch(const std::optional<std::string>& suspended_at);
bool claim_suspended(const nlohmann::json& claim);

// The CA ConfigMap's new data: the CA (and log key) of the proxy that now serves it.
nlohmann::json ca_patch(const std::string& pem);

} // namespace osf::kubernetes::manifests
