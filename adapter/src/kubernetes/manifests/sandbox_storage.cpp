#include "kubernetes/manifests/sandbox_storage.hpp"

#include <algorithm>

namespace osf::kubernetes::manifests {

using nlohmann::json;

namespace {

bool has_resource(const json& resources, const char* name) {
    for (const char* kind : {"requests", "limits"})
        if (resources.contains(kind) && resources[kind].is_object() &&
            resources[kind].contains(name))
            return true;
    return false;
}

bool mounts_at(const json& container, const std::string& path) {
    for (const auto& mount : container.value("volumeMounts", json::array()))
        if (mount.value("mountPath", "") == path) return true;
    return false;
}

// Replaces (or adds) the volume `volume["name"]` and its mount in `container`.
void put_volume(json& pod_spec, json& container, const json& volume, const std::string& path) {
    json& volumes = pod_spec["volumes"];
    if (!volumes.is_array()) volumes = json::array();
    const std::string name = volume["name"];
    volumes.erase(std::remove_if(volumes.begin(), volumes.end(),
                                 [&](const json& v) { return v.value("name", "") == name; }),
                  volumes.end());
    volumes.push_back(volume);
    json& mounts = container["volumeMounts"];
    if (!mounts.is_array()) mounts = json::array();
    mounts.erase(std::remove_if(mounts.begin(), mounts.end(),
                                [&](const json& m) { return m.value("name", "") == name; }),
                 mounts.end());
    mounts.push_back({{"name", name}, {"mountPath", path}});
}

} // namespace

json sandbox_resources(const json& template_resources, const osf::Spec& spec) {
    json resources = template_resources.is_object() ? template_resources : json::object();
    for (const char* kind : {"requests", "limits"})
        if (!resources[kind].is_object()) resources[kind] = json::object();
    const struct {
        const char* name;
        const std::optional<std::string>& wanted;
        const char* fallback;
    } rows[] = {{"cpu", spec.cpu, kDefaultCpu},
                {"memory", spec.memory, kDefaultMemory},
                {"ephemeral-storage", spec.storage, kDefaultStorage}};
    for (const auto& row : rows) {
        if (!row.wanted &&
            has_resource(template_resources.is_object() ? template_resources : json::object(),
                         row.name))
            continue; // the template's own amount
        const std::string amount = row.wanted ? *row.wanted : row.fallback;
        resources["requests"][row.name] = amount;
        resources["limits"][row.name] = amount;
    }
    return resources;
}

bool needs_writable_home(const osf::Spec& spec) {
    return spec.user.has_value() || spec.read_only_root;
}

void add_writable_dirs(json& pod_spec, json& container, const osf::Spec& spec) {
    // In every mode: /tmp in memory (tmpSize), and the sandbox user's home.
    if (!mounts_at(container, kTmpDir))
        put_volume(pod_spec, container,
                   {{"name", kTmpVolume},
                    {"emptyDir",
                     {{"medium", "Memory"}, {"sizeLimit", spec.tmp_size.value_or(kTmpSizeLimit)}}}},
                   kTmpDir);
    if (!mounts_at(container, kHomeDir))
        put_volume(pod_spec, container, {{"name", kHomeVolume}, {"emptyDir", json::object()}},
                   kHomeDir);
}

} // namespace osf::kubernetes::manifests
