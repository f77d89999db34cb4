// What a root-run sandbox's bwrap binds from: its process stages each source
// below kStagingDir first (host/mount_staging does it), and bwrap binds from
// there, as the sandbox's host id. Pure: which binds, and where each lands.
#pragma once

#include "local/launch/bwrap_command.hpp"

#include <string>
#include <vector>

namespace osf::local {

inline constexpr const char* kStagingDir = "/run/osf-stage";

struct StagedBind {
    std::string source; // the host path; empty: only a directory (or file) made there
    std::string target; // below kStagingDir
    bool directory = true;
    std::string link_target; // not empty: a symlink to it made there, nothing bound
};

// Where `name` is staged.
std::string staged_path(const std::string& name);

// For a sandbox that runs as a host id of its own: the binds its bwrap
// process makes first, and `mounts` changed to bind from there. /etc is
// staged as a tree (mounts.staged_etc): its shown entries (etc_entry_shown),
// the CA at kCaPath and the ssh client config at kSshConfigPath; an /etc/osf
// of the root's own is not shown (the CA's directory is the product's).
std::vector<StagedBind> stage_sources(SandboxMounts& mounts);

} // namespace osf::local
