// Where a local sandbox's limits are enforced: a cgroup of its own below the
// caller's, on cgroup v2 (the unified hierarchy) or on cgroup v1 (one per
// controller: cpu, memory, pids). The sandbox's first process moves itself in
// before it starts anything (process::SpawnSpec::join_cgroups), so nothing it
// starts is ever outside.
#pragma once

#include "local/launch/cgroup_limits.hpp"
#include "osf/spec.hpp"

#include <string>
#include <vector>

namespace osf::local {

struct CgroupPlacement {
    int version = 0;                      // 2, 1, or 0: none usable
    std::vector<std::string> directories; // made for the sandbox (removed at its end)
    std::vector<std::string> procs_files; // its first process joins each
    std::vector<std::string> controllers; // those of cpu, memory, pids that hold
    std::string reason;                   // why one the spec needs does not
};

// With `create` false only looks (what create checks before it starts
// anything); with true makes the cgroups and writes the limits. The limits
// the spec asks for (cpu, memory) and pids.
CgroupPlacement place_sandbox_cgroups(const std::string& id, const osf::Spec& spec, bool create);

// This machine's memory and CPUs (sysconf), for with_default_limits.
HostSize host_size();

// Removes what place_sandbox_cgroups made (empty by then: the sandbox's
// processes are gone).
void remove_sandbox_cgroups(const std::vector<std::string>& directories);

// The controllers among "cpu" and "memory" that the spec asks for and
// `placement` cannot hold: create refuses the spec when any is left.
std::vector<std::string> unenforced_limits(const osf::Spec& spec, const CgroupPlacement& placement);

} // namespace osf::local
