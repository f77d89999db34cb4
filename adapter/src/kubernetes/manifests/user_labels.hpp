// The user's labels of a sandbox (spec `labels`, create --label) on its objects.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace osf::kubernetes::manifests {

using UserLabels = std::map<std::string, std::string>;

// `object` with `labels` in its metadata and in the metadata of what it makes
// (a SandboxTemplate's pod template and volume claim templates), so that
// every object and pod of the sandbox carries them. A label already there is
// kept: the adapter's own keys are never the user's (osf/label_syntax.hpp).
nlohmann::json with_user_labels(nlohmann::json object, const UserLabels& labels);
// The same for every object of an array.
nlohmann::json with_user_labels_each(nlohmann::json objects, const UserLabels& labels);

} // namespace osf::kubernetes::manifests
