#include "local/launch/launch_plan.hpp"

#include "local/launch/cgroup_limits.hpp"
#include "local/launch/ssh_client_config.hpp"

namespace osf::local {

std::vector<std::string> proxy_argv(const std::string& binary, const SandboxPaths& paths) {
    return {binary,
            "--spec",
            paths.spec,
            "--listen",
            "fd:" + std::to_string(kProxyListenerFd),
            "--max-connections",
            std::to_string(kProxyMaxConnections),
            "--handoff-fd",
            std::to_string(kProxyHandoffFd),
            "--admin-listen",
            "unix:" + paths.admin_socket,
            "--state-dir",
            paths.proxy_state};
}

LaunchPlan launch_plan(LaunchInputs inputs) {
    LaunchPlan plan;
    plan.proxy_argv = proxy_argv(inputs.proxy_binary, inputs.paths);
    plan.proxy_environment = proxy_environment(inputs.request, inputs.caller);
    if (inputs.own_host_id) plan.staged = stage_sources(inputs.mounts);
    plan.sandbox_argv = bwrap_arguments(inputs.mounts);
    plan.ssh_config = ssh_client_config(agent_command(inputs.mounts));
    plan.cgroup_limits = cgroup_values(with_default_limits(inputs.request.spec, inputs.host));
    return plan;
}

} // namespace osf::local
