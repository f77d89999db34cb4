#include "kubernetes/manifests/object_fields.hpp"

#include "kubernetes/manifests/egress_objects.hpp"
#include "kubernetes/manifests/names.hpp"
#include "kubernetes/manifests/sandbox_objects.hpp"
#include "kubernetes/manifests/suspension.hpp"
#include "sandbox/labels.hpp"

namespace osf::kubernetes::manifests {

using nlohmann::json;

namespace {

// Copies the value at `at` when `from` has it.
void keep(json& to, const json& from, const json::json_pointer& at) {
    if (from.contains(at)) to[at] = from.at(at);
}

} // namespace

json decision_fields(const json& object) {
    json out = json::object();
    if (!object.is_object()) return out;
    keep(out, object, json::json_pointer("/kind"));
    keep(out, object, json::json_pointer("/metadata/name"));
    keep(out, object, json::json_pointer("/metadata/labels"));
    keep(out, object, json::json_pointer("/metadata/creationTimestamp"));
    const json::json_pointer suspended("/metadata/annotations/" +
                                       std::string(kSuspendedAtAnnotation));
    keep(out, object, suspended);
    keep(out, object, json::json_pointer("/metadata/annotations/" + std::string(kImageAnnotation)));
    keep(out, object, json::json_pointer("/spec/lifecycle/shutdownTime"));
    keep(out, object, json::json_pointer("/status/sandbox/name"));
    keep(out, object, json::json_pointer("/status/phase"));
    keep(out, object, json::json_pointer("/status/reason"));
    const json::json_pointer conditions("/status/conditions");
    if (object.contains(conditions) && object.at(conditions).is_array())
        for (const auto& condition : object.at(conditions))
            if (condition.is_object() && condition.value("type", "") == "Ready")
                out["status"]["conditions"] = json::array({condition});
    const json::json_pointer containers("/spec/podTemplate/spec/containers");
    if (object.contains(containers) && object.at(containers).is_array() &&
        !object.at(containers).empty() && object.at(containers)[0].is_object())
        keep(out, object, json::json_pointer("/spec/podTemplate/spec/containers/0/image"));
    return out;
}

json spec_fields(const json& config_map) {
    if (!config_map.is_object()) return json::object();
    const json::json_pointer id_label("/metadata/labels/" + std::string(sandbox::kSandboxIdLabel));
    if (!config_map.contains(id_label) || !config_map.at(id_label).is_string())
        return json::object();
    const std::string id = config_map.at(id_label).get<std::string>();
    const json::json_pointer name("/metadata/name");
    if (!config_map.contains(name) || config_map.at(name) != spec_config_name(id))
        return json::object();
    const auto text = spec_text_of(config_map);
    if (!text) return json::object();
    return {{"kind", "ConfigMap"},
            {"metadata",
             {{"name", spec_config_name(id)}, {"labels", {{sandbox::kSandboxIdLabel, id}}}}},
            {"data", {{kProxySpecFile, *text}}}};
}

} // namespace osf::kubernetes::manifests
