// The supervisor's sandbox part: the sockets the sandbox reaches the proxy
// and the CLI through, its cgroups, and bwrap started with the agent inside,
// waited for until the agent says it listens (protocol/start_status).
#pragma once

#include "local/supervisor/supervised_sandbox.hpp"

#include <functional>
#include <string>

namespace osf::local::supervisor {

// The sandbox's egress socket (given to its host id) and control socket.
struct SandboxSockets {
    Fd egress;
    Fd control;
};
SandboxSockets listen_for_sandbox(const SupervisedSandbox& sandbox);

// The spec's limits, and the defaults for those it leaves out, in cgroups
// (sandbox.placement); a missing pids controller is `warn`ed about.
void place_in_cgroups(SupervisedSandbox& sandbox,
                      const std::function<void(const std::string&)>& warn);

// Starts bwrap (sandbox.sandbox_pid) and waits for the agent, which
// sandbox.agent then reaches.
void start_sandbox(SupervisedSandbox& sandbox);

} // namespace osf::local::supervisor
