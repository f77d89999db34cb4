// The supervisor's sandbox part: the sockets the sandbox reaches the proxy
// and the CLI through, its cgroups, and bwrap started with the agent inside,
// waited for until the agent says it listens (protocol/start_status).
#pragma once

#include "local/supervisor/supervised_sandbox.hpp"

#include <functional>
#include <string>

namespace osf::local::supervisor {

// The sandbox's egress socket (given to its host id; the proxy listens on it,
// start_proxy) and control socket.
struct SandboxSockets {
    Fd egress;
    Fd control;
};
SandboxSockets listen_for_sandbox(const SupervisedSandbox& sandbox);

// The spec's limits, and the defaults for those it leaves out, in cgroups
// (sandbox.placement); a missing pids controller is `warn`ed about.
void place_in_cgroups(SupervisedSandbox& sandbox,
                      const std::function<void(const std::string&)>& warn);

// Starts bwrap (sandbox.sandbox_pid) with the agent inside, which
// sandbox.agent reaches; the CA file it binds is made empty first (the
// proxy's start fills it in). Its output, for wait_for_agent.
// `handoff`: the agent's end of the proxy's handoff channel.
Fd spawn_sandbox(SupervisedSandbox& sandbox, const Fd& handoff);

// The agent says kAgentReady once it listens on 127.0.0.1:8080. Until then
// bwrap's and the agent's `output` goes to sandbox.log (bounded); after, its
// pipe is closed. StartFailed when bwrap or the agent fails first.
void wait_for_agent(SupervisedSandbox& sandbox, Fd output);

} // namespace osf::local::supervisor
