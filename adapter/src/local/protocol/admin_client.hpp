// The CLI's side of a local sandbox's egress proxy admin port: POST /policy
// (a Unix socket in the sandbox's private directory) with the token the proxy
// wrote into its state directory.
#pragma once

#include "local/state/local_layout.hpp"

#include <string>

namespace osf::local {

struct AdminAnswer {
    unsigned status = 0;
    std::string body;
};

// Sends `body` (JSON) to the running proxy of `paths` (listen.json names its
// admin address, admin-token its token). Throws std::runtime_error when the
// proxy cannot be reached.
AdminAnswer post_policy(const SandboxPaths& paths, const std::string& body);

} // namespace osf::local
