// What the LocalBackend's operations (this folder's files) share: running host
// programs, times as the store keeps them (seconds since the epoch), a
// sandbox's liveness.
#pragma once

#include "local/state/local_layout.hpp"
#include "local/state/local_lifecycle.hpp"
#include "process/fd.hpp"
#include "sandbox/lifetime.hpp"

#include <optional>
#include <string>
#include <vector>

namespace osf::local {

// Runs a host program with no input or output; its exit code.
int run_host_quietly(const std::vector<std::string>& argv);

// The program's stdout without its last newline; CommandFailed when it fails.
std::string run_host_output(const std::vector<std::string>& argv);

// Removes the buildah working container `name` (nothing when empty).
void remove_buildah_container(const std::string& name);

// Seconds since the epoch as a time, and back.
sandbox::WallTime wall_time(long long seconds);
long long epoch_seconds(sandbox::WallTime time);

// Whether its supervisor runs and whether it said ready.
SandboxLiveness liveness_of(const SandboxPaths& paths);

} // namespace osf::local
