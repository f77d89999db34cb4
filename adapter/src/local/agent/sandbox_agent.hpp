// The first process inside a local sandbox (bwrap's command): it listens on
// the sandbox's own 127.0.0.1:8080 (HTTP) and 127.0.0.1:1080 (SOCKS5) and
// relays each connection to the proxy's
// Unix socket bound at /run/osf/egress.sock, and runs the commands `exec`
// sends through the supervisor (exec_protocol.hpp). It holds no secret and
// nothing the sandbox could not do itself.
#pragma once

namespace osf::local::agent {

// `control_fd`: the agent's end of the supervisor's SOCK_SEQPACKET channel.
// Returns when the supervisor goes away.
// `handoff_fd`: the agent's end of the proxy's handoff channel (-1: none;
// connections are then relayed to the egress socket).
int run_sandbox_agent(int control_fd, int handoff_fd);

} // namespace osf::local::agent
