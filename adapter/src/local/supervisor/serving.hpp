// The supervisor's serving part, once the sandbox started: one event loop
// that hands each exec request on the control socket to the agent (the
// sandbox's egress socket is the proxy's own listener), rereads the expiry on SIGHUP,
// and ends on a stop signal, the proxy's, the sandbox's or the agent's end,
// or the expiry.
#pragma once

#include "local/supervisor/sandbox_start.hpp"
#include "local/supervisor/supervised_sandbox.hpp"

namespace osf::local::supervisor {

// Until the sandbox should stop; true when it expired (then it is removed).
bool serve_sandbox(SupervisedSandbox& sandbox, SandboxSockets sockets);

} // namespace osf::local::supervisor
