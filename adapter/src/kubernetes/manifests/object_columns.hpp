// `list` and `gc` read only the fields they decide on: kubectl prints them as
// one tab-separated line per object (`-o jsonpath`), instead of handing over
// every pod, template and ConfigMap whole (17 MiB of JSON at 500 sandboxes),
// and the lines are read back into objects holding just those fields, which
// sandbox_rows and gc_plan read as they read whole ones.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace osf::kubernetes::manifests {

// kubectl's `-o jsonpath=` template: per object its kind, name, ID and role
// labels, creationTimestamp, the claim's shutdownTime and suspension
// annotation, the claim's sandbox name and Ready condition (status, reason),
// a pod's phase and reason, and a template's first container image.
std::string object_columns_jsonpath();

// The objects back from kubectl's output, with only the fields above (those
// kubectl printed empty are left out). Lines with another number of columns
// (none is expected) are skipped.
nlohmann::json objects_from_columns(const std::string& text);

} // namespace osf::kubernetes::manifests
