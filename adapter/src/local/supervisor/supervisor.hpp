// The process that holds one local sandbox: it starts the sandbox's egress
// proxy (outside the sandbox's network namespace) and bwrap, relays the
// sandbox's Unix socket to the proxy's loopback port, hands exec requests to
// the agent inside, and when it is told to stop, or either child ends, ends
// them both. Started detached by create; its children die with it
// (PR_SET_PDEATHSIG, bwrap --die-with-parent), so a SIGKILL leaves only files,
// which gc removes.
#pragma once

#include <string>

namespace osf::local::supervisor {

// `sandbox_dir`: <root>/sandboxes/<ID>, prepared by create. `status_fd`: a
// pipe to create: warning lines, then ready or an error (protocol/start_status).
// `lock_fd`: the sandbox's lock, taken by create, held until the supervisor ends.
int run_supervisor(const std::string& sandbox_dir, int status_fd, int lock_fd);

} // namespace osf::local::supervisor
