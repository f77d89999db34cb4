#include "kubernetes/manifests/suspension.hpp"

#include "kubernetes/manifests/sandbox_objects.hpp"

namespace osf::kubernetes::manifests {

using nlohmann::json;

json operating_mode_patch(bool running) {
    return {
        {"spec", {{"operatingMode", running ? kOperatingModeRunning : kOperatingModeSuspended}}}};
}

bool sandbox_suspended(const json& sandbox) {
    return sandbox.value("spec", json::object()).value("operatingMode", kOperatingModeRunning) ==
           kOperatingModeSuspended;
}

json saved_egress_pod(const json& pod, const std::string& id) {
    const json live = pod.value("metadata", json::object());
    json metadata = json::object();
    for (const char* field : {"name", "namespace", "labels", "annotations", "ownerReferences"})
        if (live.contains(field)) metadata[field] = live[field];
    json spec = pod.value("spec", json::object());
    spec.erase("nodeName");
    const json manifest = {
        {"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata}, {"spec", spec}};
    json config_metadata = {{"name", saved_egress_pod_name(id)},
                            {"labels", live.value("labels", json::object())}};
    if (live.contains("namespace")) config_metadata["namespace"] = live["namespace"];
    if (live.contains("ownerReferences"))
        config_metadata["ownerReferences"] = live["ownerReferences"];
    return {{"apiVersion", "v1"},
            {"kind", "ConfigMap"},
            {"metadata", config_metadata},
            {"data", {{kSavedPodKey, manifest.dump()}}}};
}

json egress_pod_from_saved(const json& config_map) {
    const std::string text =
        config_map.value("data", json::object()).value(kSavedPodKey, std::string("{}"));
    return json::parse(text, nullptr, false);
}

json suspended_patch(const std::optional<std::string>& suspended_at) {
    return {{"metadata",
             {{"annotations",
               {{kSuspendedAtAnnotation, suspended_at ? json(*suspended_at) : json(nullptr)}}}}}};
}

bool claim_suspended(const json& claim) {
    return claim.value("metadata", json::object())
        .value("annotations", json::object())
        .contains(kSuspendedAtAnnotation);
}

json ca_patch(const std::string& pem) {
    return {{"data", ca_config_data(pem)}};
}

} // namespace osf::kubernetes::manifests
