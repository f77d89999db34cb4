// What the host holds for a sandbox's bwrap mounts: the entries of its root
// and /etc, the loader and libraries the agent needs in a foreign root, this
// executable, and whether the kernel grants a user namespace here. The
// decisions are bwrap_command's; this only looks.
#pragma once

#include "local/launch/bwrap_command.hpp"
#include "local/state/local_layout.hpp"
#include "sandbox/sandbox_request.hpp"

#include <string>

namespace osf::local {

// Whether bwrap gets a user namespace of its own: always for an ordinary user;
// for root when the kernel grants one (it refuses inside a chroot, even to root).
bool bwrap_gets_user_namespace();

// `root`: "/" for the host template or a root file system directory;
// `cache`: the directory bound at /cache. Sources as on the host.
SandboxMounts read_host_mounts(const SandboxPaths& paths, const sandbox::SandboxRequest& request,
                               const std::string& root, const std::string& cache);

} // namespace osf::local
