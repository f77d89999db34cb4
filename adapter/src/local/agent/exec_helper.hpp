// One exec inside a local sandbox, in a process of its own that the agent
// forks for it: it starts the command (its own session, the system call
// filter, /workspace), answers the exit code on the exec's connection, and
// owns whatever the command leaves behind. It is a child subreaper, so every
// process the command starts stays its descendant however it leaves its
// session or group: when the exec is stopped (timeout, Ctrl-C, the client
// gone) all of them are killed; after a normal exit they go on (a server
// started in the background), and the helper stays until the last has ended.
#pragma once

#include "local/agent/seccomp_filter.hpp"
#include "local/protocol/exec_protocol.hpp"

namespace osf::local::agent {

// Runs in the forked helper, whose descriptors 0-2 are the command's stdin,
// stdout and stderr and `connection` the exec's connection; `filter` is the
// agent's compiled sandbox_syscall_rules, to which the helper adds the rules
// that protect itself and the agent. Returns the helper's exit status.
// `answered`: written (one byte) just before the answer goes on `connection`,
// so that the agent knows the helper did its work (sandbox_agent.cpp).
int run_exec_helper(const ExecMessage& message, int connection, int answered,
                    const SeccompProgram& filter);

} // namespace osf::local::agent
