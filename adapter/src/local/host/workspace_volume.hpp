// /workspace of a bounded size (the spec's `storage`, or `persistence.size`):
// an ext4 file system in a sparse file of that size beside it, mounted (loop,
// nosuid, nodev) at the workspace directory from create to destroy; the
// supervisor mounts it again after a restart of the machine. Root only (an
// ordinary user cannot mount it: create refuses such a spec there).
#pragma once

#include "local/state/local_layout.hpp"

namespace osf::local {

// Makes the file system, owned by `owner` (uid and gid), and mounts it.
// Throws std::runtime_error with what failed.
void create_workspace_volume(const SandboxPaths& paths, long long bytes, unsigned owner);

// Mounts it when it is not (a machine restart); nothing without an image.
void mount_workspace_volume(const SandboxPaths& paths);

// Unmounts it when it is mounted (destroy, gc, expiry).
void unmount_workspace_volume(const SandboxPaths& paths);

} // namespace osf::local
