#include "kubernetes/manifests/sandbox_objects.hpp"

#include "kubernetes/manifests/egress_objects.hpp"
#include "kubernetes/manifests/names.hpp"
#include "kubernetes/manifests/pod_security.hpp"
#include "kubernetes/manifests/resources.hpp"
#include "kubernetes/manifests/sandbox_storage.hpp"
#include "kubernetes/manifests/ssh_client_config.hpp"
#include "sandbox/aws_environment.hpp"
#include "sandbox/labels.hpp"

#include <algorithm>
#include <set>

namespace osf::kubernetes::manifests {

using nlohmann::json;

namespace {

json metadata(const sandbox::SandboxRequest& request, const std::string& name) {
    return {{"name", name},
            {"namespace", request.settings.ns},
            {"labels", sandbox::sandbox_labels(request.id)}};
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

std::string mount_name_at(const json& container, const std::string& path) {
    for (const auto& mount : container.value("volumeMounts", json::array()))
        if (mount.value("mountPath", "") == path) return mount.value("name", "");
    return "";
}

} // namespace

json ca_config_data(const std::string& pem) {
    static constexpr std::string_view key_begin = "-----BEGIN PUBLIC KEY-----";
    json data = json::object();
    const auto at = pem.find(key_begin);
    if (at == std::string::npos) {
        data[sandbox::kCaFile] = pem;
    } else {
        data[sandbox::kCaFile] = pem.substr(0, at);
        data[kLogKeyFile] = pem.substr(at);
    }
    return data;
}

json ca_config_map(const sandbox::SandboxRequest& request, const std::string& pem) {
    json data = ca_config_data(pem);
    data[kSshConfigKey] = ssh_client_config(egress_name(request.id), kProxyPort);
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

json sandbox_env(const sandbox::SandboxRequest& request) {
    std::vector<std::pair<std::string, std::string>> ours;
    for (const auto& [name, ref] : request.spec.secrets)
        ours.emplace_back(name, osf::secret_placeholder(name));
    for (const auto& [name, value] : sandbox::aws_placeholder_variables(request.spec))
        ours.emplace_back(name, value);
    if (needs_writable_home(request.spec) && !request.spec.env.count("HOME"))
        ours.emplace_back("HOME", kHomeDir);
    const std::string proxy = proxy_url(request.id);
    for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"})
        ours.emplace_back(name, proxy);
    for (const char* name : {"ALL_PROXY", "all_proxy"})
        ours.emplace_back(name, socks_url(request.id));
    for (const char* name : {"NO_PROXY", "no_proxy"})
        ours.emplace_back(name, "");
    for (const char* name : sandbox::kCaVariables)
        ours.emplace_back(name, sandbox::kCaPath);

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

json sandbox_pod_template(const json& base, const sandbox::SandboxRequest& request) {
    json pod = base.is_object() ? base : json::object();
    json& meta = pod["metadata"];
    if (!meta.is_object()) meta = json::object();
    json labels = meta.value("labels", json::object());
    for (auto it = labels.begin(); it != labels.end();) {
        // Labels of the sandbox a snapshot was taken from must not follow it.
        const std::string& key = it.key();
        if (key.rfind("osf.", 0) == 0 || key == sandbox::kManagedByLabel)
            it = labels.erase(it);
        else
            ++it;
    }
    labels.update(sandbox::role_labels(request.id, sandbox::kRoleSandbox));
    // The pods made from it are owned by the claim's Sandbox.
    labels[sandbox::kOwnedByClaimLabel] = sandbox::kOwnedByClaimValue;
    meta["labels"] = sandbox::with_pod_labels(labels, request.settings.pod_labels);

    json& spec = pod["spec"];
    if (!spec.is_object()) spec = json::object();
    // Decided on the template as it came: its own non-root settings count.
    const PodHardening hardening = pod_hardening(request.spec, spec);
    remove_overlay_env(pod);
    json& containers = spec["containers"];
    if (!containers.is_array() || containers.empty())
        containers = json::array({json{{"name", kSandboxContainer}}});

    // kubectl exec and cp pick this container without -c and without a warning.
    json annotations = meta.value("annotations", json::object());
    annotations["kubectl.kubernetes.io/default-container"] =
        containers[0].value("name", kSandboxContainer);
    annotations[kEnvNamesAnnotation] = overlay_env_names(request);
    meta["annotations"] = annotations;

    set_pod_lifecycle(spec);
    set_proxy_resolution(spec, request);

    json& volumes = spec["volumes"];
    if (!volumes.is_array()) volumes = json::array();
    erase_named(volumes, "name", {kCaVolume, kSshConfigVolume});
    volumes.push_back({{"name", kCaVolume},
                       {"configMap",
                        {{"name", ca_config_name(request.id)},
                         {"items", json::array({json{{"key", sandbox::kCaFile},
                                                     {"path", sandbox::kCaFile}}})}}}});

    json& first = containers[0];
    first["workingDir"] = sandbox::kWorkspaceDir;
    first["resources"] = sandbox_resources(first.value("resources", json::object()), request.spec);
    // A template's own volume at /workspace stays; ours (new, or from a
    // snapshot's template) gets this sandbox's size.
    if (!has_mount_at(first, sandbox::kWorkspaceDir) ||
        mount_name_at(first, sandbox::kWorkspaceDir) == kWorkspaceVolume) {
        // Bounded like the container's own disk use: one sandbox cannot fill the node.
        const json limit = first["resources"]["limits"].value("ephemeral-storage", json());
        json empty_dir = json::object();
        if (limit.is_string()) empty_dir["sizeLimit"] = limit;
        erase_named(volumes, "name", {kWorkspaceVolume});
        volumes.push_back({{"name", kWorkspaceVolume}, {"emptyDir", empty_dir}});
        if (!first["volumeMounts"].is_array()) first["volumeMounts"] = json::array();
        erase_named(first["volumeMounts"], "name", {kWorkspaceVolume});
        first["volumeMounts"].push_back(
            {{"name", kWorkspaceVolume}, {"mountPath", sandbox::kWorkspaceDir}});
    }
    add_writable_dirs(spec, first, request.spec);

    spec["volumes"].push_back(
        {{"name", kSshConfigVolume},
         {"configMap",
          {{"name", ca_config_name(request.id)},
           {"items", json::array({json{{"key", kSshConfigKey}, {"path", kSshConfigKey}}})}}}});
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
        erase_named(mounts, "name", {kCaVolume, kSshConfigVolume});
        mounts.push_back({{"name", kCaVolume}, {"mountPath", sandbox::kCaDir}, {"readOnly", true}});
        // One file: the image's own ssh_config.d stays.
        mounts.push_back({{"name", kSshConfigVolume},
                          {"mountPath", kSshConfigPath},
                          {"subPath", kSshConfigKey},
                          {"readOnly", true}});
        container["volumeMounts"] = mounts;
    }
    if (request.settings.image_pull_policy)
        for (const char* list : {"initContainers", "containers"})
            if (spec.contains(list) && spec[list].is_array())
                for (auto& container : spec[list])
                    container["imagePullPolicy"] = *request.settings.image_pull_policy;
    tighten_pod(meta, spec, hardening);
    return pod;
}

void set_proxy_resolution(json& pod_spec, const sandbox::SandboxRequest& request) {
    pod_spec["dnsPolicy"] = "None";
    pod_spec["dnsConfig"] = {{"nameservers", json::array({"127.0.0.1"})}};
    const std::string service = egress_name(request.id);
    const std::vector<std::string> names = {service, service + "." + request.settings.ns + ".svc"};
    json aliases = json::array();
    if (pod_spec.contains("hostAliases") && pod_spec["hostAliases"].is_array())
        for (const auto& alias : pod_spec["hostAliases"]) {
            // A snapshot's template carries its source's proxy names: dropped.
            if (!alias.is_object()) continue;
            json kept = alias;
            json hostnames = json::array();
            for (const auto& name : alias.value("hostnames", json::array()))
                if (name.is_string() && name.get<std::string>().rfind("osf-sandbox-", 0) != 0)
                    hostnames.push_back(name);
            if (hostnames.empty()) continue;
            kept["hostnames"] = hostnames;
            aliases.push_back(kept);
        }
    if (!request.egress_service_ip.empty())
        aliases.push_back({{"ip", request.egress_service_ip}, {"hostnames", names}});
    if (aliases.empty())
        pod_spec.erase("hostAliases");
    else
        pod_spec["hostAliases"] = aliases;
}

void set_pod_lifecycle(json& pod_spec) {
    pod_spec["automountServiceAccountToken"] = false;
    pod_spec["enableServiceLinks"] = false;
    // A sandbox that exits is over: create reports it instead of restarting it.
    pod_spec["restartPolicy"] = "Never";
    // The pause container becomes PID 1 and reaps the orphans of images that
    // have no init, before zombies use up the node's pid limit. A template
    // that keeps its containers' processes apart (false) keeps them apart.
    if (!(pod_spec.contains("shareProcessNamespace") && pod_spec["shareProcessNamespace"] == false))
        pod_spec["shareProcessNamespace"] = true;
    pod_spec["terminationGracePeriodSeconds"] = kTerminationGraceSeconds;
}

std::string overlay_env_names(const sandbox::SandboxRequest& request) {
    std::string names;
    auto add = [&names](const std::string& name) {
        if (!names.empty()) names += ",";
        names += name;
    };
    for (const auto& [name, value] : request.spec.env)
        add(name);
    for (const auto& [name, ref] : request.spec.secrets)
        add(name);
    for (const auto& [name, value] : sandbox::aws_placeholder_variables(request.spec))
        add(name);
    return names;
}

void remove_overlay_env(json& pod) {
    if (!pod.is_object() || !pod.contains("metadata") || !pod["metadata"].is_object()) return;
    const json annotations = pod["metadata"].value("annotations", json::object());
    const std::string listed = annotations.value(kEnvNamesAnnotation, "");
    std::set<std::string> names;
    for (std::size_t start = 0; start < listed.size();) {
        const auto comma = listed.find(',', start);
        const auto end = comma == std::string::npos ? listed.size() : comma;
        if (end > start) names.insert(listed.substr(start, end - start));
        start = end + 1;
    }
    if (names.empty() || !pod.contains("spec") || !pod["spec"].is_object()) return;
    for (const char* list : {"initContainers", "containers"})
        if (pod["spec"].contains(list) && pod["spec"][list].is_array())
            for (auto& container : pod["spec"][list])
                if (container.is_object() && container.contains("env"))
                    erase_named(container["env"], "name", names);
}

json sandbox_network_policy(const std::string& id) {
    return {
        {"ingress", json::array()},
        {"egress",
         json::array({json{
             {"to", json::array({json{
                        {"podSelector",
                         {{"matchLabels", sandbox::role_selector(id, sandbox::kRoleEgress)}}}}})},
             {"ports", json::array({json{{"protocol", "TCP"}, {"port", kProxyPort}}})}}})}};
}

json sandbox_template(const sandbox::SandboxRequest& request, const json& pod_template) {
    return {{"apiVersion", kApiVersionExtensions},
            {"kind", "SandboxTemplate"},
            {"metadata", metadata(request, sandbox_name(request.id))},
            {"spec",
             {{"podTemplate", pod_template},
              {"networkPolicyManagement", "Managed"},
              {"networkPolicy", sandbox_network_policy(request.id)}}}};
}

json sandbox_warm_pool(const sandbox::SandboxRequest& request) {
    return {
        {"apiVersion", kApiVersionExtensions},
        {"kind", "SandboxWarmPool"},
        {"metadata", metadata(request, sandbox_name(request.id))},
        {"spec", {{"replicas", 0}, {"sandboxTemplateRef", {{"name", sandbox_name(request.id)}}}}}};
}

json sandbox_claim(const sandbox::SandboxRequest& request, const std::string& image) {
    json meta = metadata(request, sandbox_name(request.id));
    if (!image.empty()) meta["annotations"] = {{kImageAnnotation, image}};
    return {{"apiVersion", kApiVersionExtensions},
            {"kind", "SandboxClaim"},
            {"metadata", meta},
            {"spec", {{"warmPoolRef", {{"name", sandbox_name(request.id)}}}}}};
}

std::string first_container_image(const json& pod_template) {
    const json::json_pointer image("/spec/containers/0/image");
    if (!pod_template.is_object() || !pod_template.contains(image)) return "";
    const json& value = pod_template.at(image);
    return value.is_string() ? value.get<std::string>() : "";
}

} // namespace osf::kubernetes::manifests
