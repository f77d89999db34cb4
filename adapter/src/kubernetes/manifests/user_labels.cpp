#include "kubernetes/manifests/user_labels.hpp"

namespace osf::kubernetes::manifests {

using nlohmann::json;

namespace {

void add_to_metadata(json& holder, const UserLabels& labels) {
    json& metadata = holder["metadata"];
    if (!metadata.is_object()) metadata = json::object();
    json& existing = metadata["labels"];
    if (!existing.is_object()) existing = json::object();
    for (const auto& [key, value] : labels)
        if (!existing.contains(key)) existing[key] = value;
}

} // namespace

json with_user_labels(json object, const UserLabels& labels) {
    if (labels.empty() || !object.is_object()) return object;
    add_to_metadata(object, labels);
    if (object.contains("spec") && object["spec"].is_object()) {
        json& spec = object["spec"];
        if (spec.contains("podTemplate") && spec["podTemplate"].is_object())
            add_to_metadata(spec["podTemplate"], labels);
        if (spec.contains("volumeClaimTemplates") && spec["volumeClaimTemplates"].is_array())
            for (auto& claim : spec["volumeClaimTemplates"])
                if (claim.is_object()) add_to_metadata(claim, labels);
    }
    return object;
}

json with_user_labels_each(json objects, const UserLabels& labels) {
    if (!objects.is_array()) return objects;
    for (auto& object : objects)
        object = with_user_labels(std::move(object), labels);
    return objects;
}

} // namespace osf::kubernetes::manifests
