// `list` and `gc` keep, of each object they read, only the fields they decide
// on: objects stream in one at a time (Kubectl::list_items) and each is cut
// down at once, so thousands of sandboxes' pods, templates and ConfigMaps are
// never held whole. sandbox_rows and gc_plan read the cut-down objects as they
// read whole ones.
#pragma once

#include <nlohmann/json.hpp>

namespace osf::kubernetes::manifests {

// Of `object`: its kind, name, labels, creationTimestamp, the suspension
// annotation, a claim's shutdownTime, sandbox name and Ready condition, a
// pod's phase and reason, and a template's first container image. Everything
// else (specs, data, other conditions) is left out.
nlohmann::json decision_fields(const nlohmann::json& object);

// Of a ConfigMap: its kind, name and labels and the spec it holds when it is a
// sandbox's spec ConfigMap (what `list -o json` shows as the policy); an empty
// object for any other ConfigMap.
nlohmann::json spec_fields(const nlohmann::json& config_map);

} // namespace osf::kubernetes::manifests
