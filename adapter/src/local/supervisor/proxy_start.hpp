// The supervisor's proxy part: the sandbox's egress proxy started outside its
// network namespace, as the launch plan says, on the sandbox's egress socket,
// and waited for until it listens there; then the egress log's key and the CA copied out of its
// state directory for the sandbox and for verification.
#pragma once

#include "local/supervisor/supervised_sandbox.hpp"

namespace osf::local::supervisor {

// Starts the proxy (sandbox.proxy_pid) listening on `egress_listener`, the
// sandbox's egress socket, and taking the agent's connections on `handoff`
// (its end of the pair handoff_channel() made); the watch wait_for_proxy
// wakes on, or none (it then polls).
Fd start_proxy(SupervisedSandbox& sandbox, const Fd& egress_listener, const Fd& handoff);

// A SOCK_SEQPACKET pair: the proxy's end and the agent's, on which the agent
// hands the proxy each connection it accepts inside the sandbox.
struct HandoffChannel {
    Fd proxy_end;
    Fd agent_end;
};
HandoffChannel handoff_channel();

// Until the proxy listens; StartFailed when it exits, listens elsewhere, or
// the start's deadline passes.
void wait_for_proxy(SupervisedSandbox& sandbox, Fd listened);

} // namespace osf::local::supervisor
