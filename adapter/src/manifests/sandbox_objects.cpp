#include "manifests/sandbox_objects.hpp"

#include "manifests/egress_objects.hpp"
#include "manifests/labels.hpp"
#include "manifests/names.hpp"
#include "manifests/resources.hpp"

#include <algorithm>
#include <set>

namespace osf::manifests {

using nlohmann::json;

namespace {

json metadata(const SandboxRequest& request, const std::string& name) {
    return {
        {"name", name}, {"namespace", request.settings.ns}, {"labels", sandbox_labels(request.id)}};
}

json env_var(const std::string& name, const std::string& value) {
    return {{"name", name}, {"value", value}};
}

// Removes entries whose `key` equals `value` from an array field.
void erase_named(json& array, const std::string& key, const std::set<std::string>& values) {
    if (!array.is_array()) return;
    array.erase(std::remove_if(array.begin(), array.end(),
                               [&](const json& item) {
                                   return item.is_object() && item.contains(key) &&
                                          item[key].is_string() &&
                                          values.count(item[key].get<std::string>()) > 0;
                               }),
                array.end());
}

bool has_mount_at(const json& container, const std::string& path) {
    for (const auto& mount : container.value("volumeMounts", json::array()))
        if (mount.value("mountPath", "") == path) return true;
    return false;
}

} // namespace

json harden_container_security(json security) {
    if (!security.is_object()) security = json::object();
    security["allowPrivilegeEscalation"] = false;
    security["privileged"] = false;
    security["capabilities"] = {{"drop", json::array({"ALL"})}, {"add", json::array()}};
    for (const char* capability : kSandboxCapabilities)
        security["capabilities"]["add"].push_back(capability);
    security["seccompProfile"] = {{"type", "RuntimeDefault"}};
    return security;
}

json ca_config_map(const SandboxRequest& request, const std::string& pem) {
    static constexpr std::string_view key_begin = "-----BEGIN PUBLIC KEY-----";
    json data = json::object();
    const auto at = pem.find(key_begin);
    if (at == std::string::npos) {
        data[kCaFile] = pem;
    } else {
        data[kCaFile] = pem.substr(0, at);
        data[kLogKeyFile] = pem.substr(at);
    }
    return {{"apiVersion", "v1"},
            {"kind", "ConfigMap"},
            {"metadata", metadata(request, ca_config_name(request.id))},
            {"data", data}};
}

json image_pod_template(const std::string& image) {
    return {
        {"metadata", json::object()},
        {"spec",
         {{"containers", json::array({json{{"name", kSandboxContainer},
                                           {"image", image},
                                           {"command", json::array({"sleep", "infinity"})}}})}}}};
}

json sandbox_env(const SandboxRequest& request) {
    std::vector<std::pair<std::string, std::string>> ours;
    for (const auto& [name, ref] : request.spec.secrets)
        ours.emplace_back(name, osf::secret_placeholder(name));
    const std::string proxy = proxy_url(request.id);
    for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"})
        ours.emplace_back(name, proxy);
    for (const char* name : {"NO_PROXY", "no_proxy"})
        ours.emplace_back(name, "");
    for (const char* name : kCaVariables)
        ours.emplace_back(name, kCaPath);

    std::set<std::string> overridden;
    for (const auto& [name, value] : ours)
        overridden.insert(name);
    json env = json::array();
    for (const auto& [name, value] : request.spec.env)
        if (!overridden.count(name)) env.push_back(env_var(name, value));
    for (const auto& [name, value] : ours)
        env.push_back(env_var(name, value));
    return env;
}

json sandbox_pod_template(const json& base, const SandboxRequest& request) {
    json pod = base.is_object() ? base : json::object();
    json& meta = pod["metadata"];
    if (!meta.is_object()) meta = json::object();
    json labels = meta.value("labels", json::object());
    for (auto it = labels.begin(); it != labels.end();) {
        // Labels of the sandbox a snapshot was taken from must not follow it.
        const std::string& key = it.key();
        if (key.rfind("osf.", 0) == 0 || key == kManagedByLabel)
            it = labels.erase(it);
        else
            ++it;
    }
    labels.update(role_labels(request.id, kRoleSandbox));
    meta["labels"] = labels;

    json& spec = pod["spec"];
    if (!spec.is_object()) spec = json::object();
    json& containers = spec["containers"];
    if (!containers.is_array() || containers.empty())
        containers = json::array({json{{"name", kSandboxContainer}}});

    // kubectl exec and cp pick this container without -c and without a warning.
    json annotations = meta.value("annotations", json::object());
    annotations["kubectl.kubernetes.io/default-container"] =
        containers[0].value("name", kSandboxContainer);
    meta["annotations"] = annotations;

    spec["automountServiceAccountToken"] = false;
    spec["enableServiceLinks"] = false;
    json pod_security = spec.value("securityContext", json::object());
    pod_security["seccompProfile"] = {{"type", "RuntimeDefault"}};
    spec["securityContext"] = pod_security;

    json& volumes = spec["volumes"];
    if (!volumes.is_array()) volumes = json::array();
    erase_named(volumes, "name", {kCaVolume});
    volumes.push_back({{"name", kCaVolume},
                       {"configMap",
                        {{"name", ca_config_name(request.id)},
                         {"items", json::array({json{{"key", kCaFile}, {"path", kCaFile}}})}}}});
    json& first = containers[0];
    if (!has_mount_at(first, kWorkspaceDir)) {
        erase_named(volumes, "name", {kWorkspaceVolume});
        volumes.push_back({{"name", kWorkspaceVolume}, {"emptyDir", json::object()}});
        if (!first["volumeMounts"].is_array()) first["volumeMounts"] = json::array();
        first["volumeMounts"].push_back({{"name", kWorkspaceVolume}, {"mountPath", kWorkspaceDir}});
    }
    first["workingDir"] = kWorkspaceDir;
    if (request.spec.cpu || request.spec.memory) {
        json resources = first.value("resources", json::object());
        for (const char* kind : {"requests", "limits"}) {
            if (!resources[kind].is_object()) resources[kind] = json::object();
            if (request.spec.cpu) resources[kind]["cpu"] = *request.spec.cpu;
            if (request.spec.memory) resources[kind]["memory"] = *request.spec.memory;
        }
        first["resources"] = resources;
    }

    const json env = sandbox_env(request);
    std::set<std::string> env_names;
    for (const auto& var : env)
        env_names.insert(var["name"].get<std::string>());
    for (auto& container : containers) {
        json container_env = container.value("env", json::array());
        erase_named(container_env, "name", env_names);
        for (const auto& var : env)
            container_env.push_back(var);
        container["env"] = container_env;
        json mounts = container.value("volumeMounts", json::array());
        erase_named(mounts, "name", {kCaVolume});
        mounts.push_back({{"name", kCaVolume}, {"mountPath", kCaDir}, {"readOnly", true}});
        container["volumeMounts"] = mounts;
        container["securityContext"] =
            harden_container_security(container.value("securityContext", json::object()));
    }
    if (spec.contains("initContainers") && spec["initContainers"].is_array())
        for (auto& container : spec["initContainers"])
            container["securityContext"] =
                harden_container_security(container.value("securityContext", json::object()));
    return pod;
}

json sandbox_network_policy(const std::string& id) {
    const json dns_peer = {
        {"namespaceSelector", {{"matchLabels", {{"kubernetes.io/metadata.name", "kube-system"}}}}},
        {"podSelector", {{"matchLabels", {{"k8s-app", "kube-dns"}}}}}};
    return {
        {"ingress", json::array()},
        {"egress",
         json::array({
             json{{"to", json::array({json{
                             {"podSelector", {{"matchLabels", role_selector(id, kRoleEgress)}}}}})},
                  {"ports", json::array({json{{"protocol", "TCP"}, {"port", kProxyPort}}})}},
             json{{"to", json::array({dns_peer})},
                  {"ports", json::array({json{{"protocol", "UDP"}, {"port", 53}},
                                         json{{"protocol", "TCP"}, {"port", 53}}})}},
         })}};
}

json sandbox_template(const SandboxRequest& request, const json& pod_template) {
    return {{"apiVersion", kApiVersionExtensions},
            {"kind", "SandboxTemplate"},
            {"metadata", metadata(request, sandbox_name(request.id))},
            {"spec",
             {{"podTemplate", pod_template},
              {"networkPolicyManagement", "Managed"},
              {"networkPolicy", sandbox_network_policy(request.id)}}}};
}

json sandbox_warm_pool(const SandboxRequest& request) {
    return {
        {"apiVersion", kApiVersionExtensions},
        {"kind", "SandboxWarmPool"},
        {"metadata", metadata(request, sandbox_name(request.id))},
        {"spec", {{"replicas", 0}, {"sandboxTemplateRef", {{"name", sandbox_name(request.id)}}}}}};
}

json sandbox_claim(const SandboxRequest& request) {
    return {{"apiVersion", kApiVersionExtensions},
            {"kind", "SandboxClaim"},
            {"metadata", metadata(request, sandbox_name(request.id))},
            {"spec", {{"warmPoolRef", {{"name", sandbox_name(request.id)}}}}}};
}

} // namespace osf::manifests
