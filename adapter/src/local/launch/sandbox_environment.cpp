#include "local/launch/sandbox_environment.hpp"

#include "sandbox/aws_environment.hpp"
#include "sandbox/sandbox_paths.hpp"

#include <set>

namespace osf::local {

Environment sandbox_environment(const sandbox::SandboxRequest& request) {
    Environment ours;
    for (const auto& [name, ref] : request.spec.secrets)
        ours.emplace_back(name, osf::secret_placeholder(name));
    for (const auto& [name, value] : sandbox::aws_placeholder_variables(request.spec))
        ours.emplace_back(name, value);
    for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"})
        ours.emplace_back(name, kSandboxProxyUrl);
    for (const char* name : {"ALL_PROXY", "all_proxy"})
        ours.emplace_back(name, kSandboxSocksUrl);
    for (const char* name : {"NO_PROXY", "no_proxy"})
        ours.emplace_back(name, "");
    for (const char* name : sandbox::kCaVariables)
        ours.emplace_back(name, sandbox::kCaPath);

    Environment base = {
        {"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
        {"HOME", sandbox::kWorkspaceDir},
        {"LANG", "C.UTF-8"},
    };
    // /cache and the package managers' variables, as on Kubernetes.
    for (const auto& [name, value] : sandbox::kCacheVariables)
        base.emplace_back(std::string(name), std::string(value));
    std::set<std::string> overridden;
    for (const auto& [name, value] : ours)
        overridden.insert(name);
    std::set<std::string> from_spec;
    for (const auto& [name, value] : request.spec.env)
        if (!overridden.count(name)) from_spec.insert(name);

    Environment environment;
    for (const auto& [name, value] : base)
        if (!from_spec.count(name)) environment.emplace_back(name, value);
    for (const auto& [name, value] : request.spec.env)
        if (!overridden.count(name)) environment.emplace_back(name, value);
    environment.insert(environment.end(), ours.begin(), ours.end());
    return environment;
}

Environment proxy_environment(const sandbox::SandboxRequest& request,
                              const sandbox::EnvLookup& caller) {
    Environment environment;
    auto pass = [&](const std::string& name) {
        if (auto value = caller(name); value && !value->empty())
            environment.emplace_back(name, *value);
    };
    for (const auto& name : request.secrets.env_names)
        pass("OSF_SECRET_" + name);
    if (!request.secrets.file_names.empty())
        environment.emplace_back("OSF_SECRETS_DIR", request.settings.secrets_dir);
    if (request.secrets.openbao)
        for (const char* name :
             {"OSF_OPENBAO_ADDR", "OSF_OPENBAO_TOKEN", "OSF_OPENBAO_MOUNT", "OSF_OPENBAO_CACERT"})
            pass(name);
    pass("OSF_SANDBOX_HOST_ALIASES");
    pass("OSF_UPSTREAM_CA_BUNDLE");
    return environment;
}

std::vector<std::string> to_envp(const Environment& environment) {
    std::vector<std::string> envp;
    envp.reserve(environment.size());
    for (const auto& [name, value] : environment)
        envp.push_back(name + "=" + value);
    return envp;
}

} // namespace osf::local
