// What the host holds for a sandbox's bwrap mounts: the entries of its root
// and /etc, the loader and libraries the agent needs in a foreign root, this
// executable, and whether the kernel grants a user namespace here. The
// decisions are bwrap_command's; this only looks.
#pragma once

#include "backends/local/bwrap_command.hpp"
#include "backends/local/local_layout.hpp"
#include "manifests/sandbox_request.hpp"

#include <string>

namespace osf::backends::local {

// Whether bwrap gets a user namespace of its own: always for an ordinary user;
// for root when the kernel grants one (it refuses inside a chroot, even to root).
bool bwrap_gets_user_namespace();

// `root`: "/" for the host template or a root file system directory;
// `control_fd`: the agent's end of the supervisor's channel.
SandboxMounts read_host_mounts(const SandboxPaths& paths, const manifests::SandboxRequest& request,
                               const std::string& root, int control_fd);

} // namespace osf::backends::local
