// How a local sandbox's egress proxy is started: one argv for the supervisor
// that starts it and for `create --dry-run`, which shows it.
#pragma once

#include "local/local_layout.hpp"

#include <string>
#include <vector>

namespace osf::local {

// Kernel-chosen ports on loopback (listen.json names them), the sandbox's own
// spec and state directory, and the machine's other proxies' listeners as
// never a destination (an alias to 127.0.0.1 is still allowed).
std::vector<std::string> proxy_argv(const std::string& binary, const SandboxPaths& paths,
                                    const std::string& root);

} // namespace osf::local
