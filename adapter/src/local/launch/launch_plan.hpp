// What a local sandbox is started with, decided in one place: the egress
// proxy's command line and environment, the bubblewrap command line (with the
// binds a root-run supervisor stages first) and the cgroup limits. Pure: the
// host's facts come in as SandboxMounts (host_mounts.hpp reads them).
// `create --dry-run` prints the plan and the supervisor runs it, so what is
// shown is what runs.
#pragma once

#include "local/launch/bwrap_command.hpp"
#include "local/launch/cgroup_limits.hpp"
#include "local/launch/sandbox_environment.hpp"
#include "local/launch/staged_binds.hpp"
#include "local/state/local_layout.hpp"
#include "sandbox/sandbox_request.hpp"
#include "sandbox/settings.hpp"

#include <string>
#include <utility>
#include <vector>

namespace osf::local {

struct LaunchInputs {
    const sandbox::SandboxRequest& request;
    const SandboxPaths& paths;
    std::string state_root;           // the machine's sandbox-local state directory
    std::string proxy_binary;         // find_proxy_binary's answer
    const sandbox::EnvLookup& caller; // the environment create ran with
    SandboxMounts mounts;             // read_host_mounts' answer
    bool own_host_id = false;         // runs as a host id of its own: its sources are staged
    HostSize host{};                  // for the limits the spec leaves out
};

struct LaunchPlan {
    std::vector<std::string> proxy_argv;
    Environment proxy_environment; // values may be secrets: never printed
    std::vector<StagedBind> staged;
    std::vector<std::string> sandbox_argv; // bwrap's, from the staged sources
    std::string ssh_config;                // the sandbox's /etc/ssh/ssh_config
    std::vector<std::pair<std::string, std::string>> cgroup_limits; // file -> value
};

LaunchPlan launch_plan(LaunchInputs inputs);

// The proxy listens on the sandbox's egress socket, which the supervisor binds
// and hands it as descriptor kProxyListenerFd, and takes the connections the
// agent accepted on kProxyHandoffFd (no process relays them), and serves its admin port on a Unix
// socket in the sandbox's 0700 state directory; never on a host port: only the
// sandbox's host id, this sandbox's supervisor and the CLI of the user who
// owns it can connect, whatever other users, sandboxes or state directories
// the machine has. At most kProxyMaxConnections at once, as the agent relays.
// The sandbox's own spec and state directory.
inline constexpr int kProxyListenerFd = 3;
// Where the agent hands it the sandbox's connections (--handoff-fd): the
// proxy's end of a SOCK_SEQPACKET pair whose other end is the agent's.
inline constexpr int kProxyHandoffFd = 4;
inline constexpr int kProxyMaxConnections = 1024;
std::vector<std::string> proxy_argv(const std::string& binary, const SandboxPaths& paths);

} // namespace osf::local
