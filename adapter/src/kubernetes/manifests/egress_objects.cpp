#include "kubernetes/manifests/egress_objects.hpp"

#include "kubernetes/manifests/names.hpp"
#include "sandbox/labels.hpp"

namespace osf::kubernetes::manifests {

using nlohmann::json;

namespace {

json metadata(const sandbox::SandboxRequest& request, const std::string& name, const json& labels) {
    return {{"name", name}, {"namespace", request.settings.ns}, {"labels", labels}};
}

json secret_env(const std::string& variable, const std::string& secret, const std::string& key) {
    return {{"name", variable},
            {"valueFrom", {{"secretKeyRef", {{"name", secret}, {"key", key}}}}}};
}

json plain_env(const std::string& variable, const std::string& value) {
    return {{"name", variable}, {"value", value}};
}

json proxy_env(const sandbox::SandboxRequest& request) {
    const auto& plan = request.secrets;
    const std::string secret = secret_name(request.id);
    json env = json::array();
    env.push_back(plain_env("OSF_SECRETS_DIR", kProxySecretsDir));
    for (const auto& name : plan.env_names)
        env.push_back(secret_env("OSF_SECRET_" + name, secret, sandbox::kEnvKeyPrefix + name));
    if (plan.openbao) {
        env.push_back(plain_env("OSF_OPENBAO_ADDR", request.settings.openbao_addr.value_or("")));
        env.push_back(secret_env("OSF_OPENBAO_TOKEN", secret, sandbox::kOpenBaoTokenKey));
        if (request.settings.openbao_mount)
            env.push_back(plain_env("OSF_OPENBAO_MOUNT", *request.settings.openbao_mount));
    }
    if (request.settings.host_aliases)
        env.push_back(plain_env("OSF_SANDBOX_HOST_ALIASES", *request.settings.host_aliases));
    return env;
}

} // namespace

std::string proxy_url(const std::string& id) {
    return "http://" + egress_name(id) + ":" + std::to_string(kProxyPort);
}

std::string socks_url(const std::string& id) {
    return "socks5h://" + egress_name(id) + ":" + std::to_string(kSocksPort);
}

json egress_secret_preview(const sandbox::SandboxRequest& request) {
    json data = json::object();
    for (const auto& name : request.secrets.env_names)
        data[sandbox::kEnvKeyPrefix + name] = osf::secret_placeholder(name);
    for (const auto& name : request.secrets.file_names)
        data[sandbox::kFileKeyPrefix + name] = osf::secret_placeholder(name);
    if (request.secrets.openbao)
        data[sandbox::kOpenBaoTokenKey] = osf::secret_placeholder("OSF_OPENBAO_TOKEN");
    return {{"apiVersion", "v1"},
            {"kind", "Secret"},
            {"metadata",
             metadata(request, secret_name(request.id), sandbox::sandbox_labels(request.id))},
            {"type", "Opaque"},
            {"stringData", data}};
}

json spec_config_map(const sandbox::SandboxRequest& request) {
    return {{"apiVersion", "v1"},
            {"kind", "ConfigMap"},
            {"metadata",
             metadata(request, spec_config_name(request.id), sandbox::sandbox_labels(request.id))},
            {"data", {{kProxySpecFile, request.spec_text}}}};
}

json spec_config_patch(const std::string& spec_text) {
    return {{"data", {{kProxySpecFile, spec_text}}}};
}

std::optional<std::string> spec_text_of(const json& config_map) {
    if (!config_map.is_object()) return std::nullopt;
    const auto data = config_map.find("data");
    if (data == config_map.end() || !data->is_object()) return std::nullopt;
    const auto text = data->find(kProxySpecFile);
    if (text == data->end() || !text->is_string()) return std::nullopt;
    return text->get<std::string>();
}

json upstream_ca_config_map(const sandbox::SandboxRequest& request) {
    return {{"apiVersion", "v1"},
            {"kind", "ConfigMap"},
            {"metadata", metadata(request, upstream_ca_config_name(request.id),
                                  sandbox::sandbox_labels(request.id))},
            {"data", {{kUpstreamCaFile, request.upstream_ca_pem}}}};
}

json egress_pod(const sandbox::SandboxRequest& request) {
    const std::string& id = request.id;
    json volumes = json::array({
        json{{"name", "state"}, {"emptyDir", {{"sizeLimit", kProxyStateSizeLimit}}}},
        json{{"name", "spec"}, {"configMap", {{"name", spec_config_name(id)}}}},
    });
    json mounts = json::array({
        json{{"name", "state"}, {"mountPath", kProxyStateDir}},
        json{{"name", "spec"}, {"mountPath", kProxySpecDir}, {"readOnly", true}},
    });
    if (!request.secrets.file_names.empty()) {
        json items = json::array();
        for (const auto& name : request.secrets.file_names)
            items.push_back({{"key", sandbox::kFileKeyPrefix + name}, {"path", name}});
        // 0440 with fsGroup: readable by the proxy's group only.
        volumes.push_back(
            {{"name", "secrets"},
             {"secret",
              {{"secretName", secret_name(id)}, {"items", items}, {"defaultMode", 0440}}}});
        mounts.push_back(
            {{"name", "secrets"}, {"mountPath", kProxySecretsDir}, {"readOnly", true}});
    }
    json args = json::array({"--spec", std::string(kProxySpecDir) + "/" + kProxySpecFile,
                             "--listen", "0.0.0.0:" + std::to_string(kProxyPort), "--admin-listen",
                             "0.0.0.0:" + std::to_string(kAdminPort), "--state-dir", kProxyStateDir,
                             "--log-stdout"});
    if (!request.upstream_ca_pem.empty()) {
        volumes.push_back(
            {{"name", "upstream-ca"}, {"configMap", {{"name", upstream_ca_config_name(id)}}}});
        mounts.push_back(
            {{"name", "upstream-ca"}, {"mountPath", kUpstreamCaDir}, {"readOnly", true}});
        args.push_back("--upstream-ca");
        args.push_back(std::string(kUpstreamCaDir) + "/" + kUpstreamCaFile);
    }
    json container = {
        {"name", kProxyContainer},
        {"image", request.settings.proxy_image},
        {"command", json::array({kProxyBinary})},
        {"args", args},
        {"ports",
         json::array(
             {json{{"name", "proxy"}, {"containerPort", kProxyPort}, {"protocol", "TCP"}},
              json{{"name", "admin"}, {"containerPort", kAdminPort}, {"protocol", "TCP"}}})},
        {"env", proxy_env(request)},
        {"readinessProbe",
         {{"httpGet", {{"path", "/readyz"}, {"port", kAdminPort}}},
          {"periodSeconds", 2},
          {"failureThreshold", 3}}},
        {"resources",
         {{"requests", {{"cpu", "100m"}, {"memory", "64Mi"}, {"ephemeral-storage", "64Mi"}}},
          {"limits",
           {{"cpu", "1"}, {"memory", "512Mi"}, {"ephemeral-storage", kProxyStateSizeLimit}}}}},
        {"securityContext",
         {{"allowPrivilegeEscalation", false},
          {"privileged", false},
          {"readOnlyRootFilesystem", true},
          {"runAsNonRoot", true},
          {"runAsUser", kProxyUid},
          {"runAsGroup", kProxyUid},
          {"capabilities", {{"drop", json::array({"ALL"})}}},
          {"seccompProfile", {{"type", "RuntimeDefault"}}}}},
        {"volumeMounts", mounts},
    };
    if (request.settings.image_pull_policy)
        container["imagePullPolicy"] = *request.settings.image_pull_policy;
    return {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata",
         metadata(request, egress_name(id),
                  sandbox::with_pod_labels(sandbox::role_labels(id, sandbox::kRoleEgress),
                                           request.settings.pod_labels))},
        {"spec",
         {// The CA lives only in the proxy's memory: a restarted proxy would have a
          // new CA the sandbox does not trust, so a crash is final and visible.
          {"restartPolicy", "Never"},
          {"automountServiceAccountToken", false},
          {"enableServiceLinks", false},
          {"securityContext",
           {{"runAsNonRoot", true},
            {"runAsUser", kProxyUid},
            {"runAsGroup", kProxyUid},
            {"fsGroup", kProxyUid},
            {"seccompProfile", {{"type", "RuntimeDefault"}}}}},
          {"containers", json::array({container})},
          {"volumes", volumes}}},
    };
}

json egress_service(const sandbox::SandboxRequest& request) {
    const std::string& id = request.id;
    return {{"apiVersion", "v1"},
            {"kind", "Service"},
            {"metadata", metadata(request, egress_name(id), sandbox::sandbox_labels(id))},
            {"spec",
             {{"type", "ClusterIP"},
              {"selector", sandbox::role_selector(id, sandbox::kRoleEgress)},
              {"ports", json::array({json{{"name", "proxy"},
                                          {"port", kProxyPort},
                                          {"targetPort", kProxyPort},
                                          {"protocol", "TCP"}},
                                     json{{"name", "socks"},
                                          {"port", kSocksPort},
                                          {"targetPort", kProxyPort},
                                          {"protocol", "TCP"}}})}}}};
}

json egress_network_policy(const sandbox::SandboxRequest& request) {
    const std::string& id = request.id;
    return {
        {"apiVersion", "networking.k8s.io/v1"},
        {"kind", "NetworkPolicy"},
        {"metadata", metadata(request, egress_name(id), sandbox::sandbox_labels(id))},
        {"spec",
         {{"podSelector", {{"matchLabels", sandbox::role_selector(id, sandbox::kRoleEgress)}}},
          {"policyTypes", json::array({"Ingress"})},
          {"ingress",
           json::array({json{
               {"from", json::array({json{{"podSelector",
                                           {{"matchLabels", sandbox::role_selector(
                                                                id, sandbox::kRoleSandbox)}}}}})},
               {"ports", json::array({json{{"protocol", "TCP"}, {"port", kProxyPort}}})}}})}}}};
}

} // namespace osf::kubernetes::manifests
