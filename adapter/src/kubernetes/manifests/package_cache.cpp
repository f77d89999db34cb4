#include "kubernetes/manifests/package_cache.hpp"

#include <algorithm>

namespace osf::kubernetes::manifests {

using nlohmann::json;

namespace {

bool named(const json& item, const std::string& name) {
    return item.is_object() && item.value("name", "") == name;
}

} // namespace

json with_package_cache(json pod_template, const sandbox::SandboxRequest& request) {
    json& spec = pod_template["spec"];
    if (!spec["containers"].is_array() || spec["containers"].empty()) return pod_template;
    json& volumes = spec["volumes"];
    if (!volumes.is_array()) volumes = json::array();
    volumes.erase(std::remove_if(volumes.begin(), volumes.end(),
                                 [](const json& v) { return named(v, kCacheVolume); }),
                  volumes.end());
    if (request.spec.cache)
        volumes.push_back(
            {{"name", kCacheVolume},
             {"persistentVolumeClaim", {{"claimName", request.spec.cache->claim_name}}}});
    else
        volumes.push_back({{"name", kCacheVolume}, {"emptyDir", json::object()}});

    json& container = spec["containers"][0];
    json mounts = json::array();
    for (const auto& mount : container.value("volumeMounts", json::array()))
        if (mount.value("mountPath", "") != sandbox::kCacheDir) mounts.push_back(mount);
    mounts.push_back({{"name", kCacheVolume}, {"mountPath", sandbox::kCacheDir}});
    container["volumeMounts"] = mounts;

    json env = container.value("env", json::array());
    for (const auto& [name, value] : sandbox::kCacheVariables) {
        const std::string variable(name);
        if (request.spec.env.count(variable)) continue;
        env.erase(std::remove_if(env.begin(), env.end(),
                                 [&](const json& var) { return named(var, variable); }),
                  env.end());
        env.push_back({{"name", variable}, {"value", std::string(value)}});
    }
    container["env"] = env;
    return pod_template;
}

} // namespace osf::kubernetes::manifests
