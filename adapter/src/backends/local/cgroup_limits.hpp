// CPU, memory and process limits for a local sandbox through cgroup v2.
#pragma once

#include "osf/spec.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace osf::backends::local {

inline constexpr long long kSandboxPidsMax = 4096;

// The cgroup files and values for a spec, in the order they are written:
// cpu.max ("<quota> 100000" from `cpu`), memory.max (bytes from `memory`),
// pids.max. Pure; the spec is already valid.
std::vector<std::pair<std::string, std::string>> cgroup_values(const osf::Spec& spec);

// Millicores of a valid `cpu` ("2", "0.5", "500m"); bytes of a valid `memory`
// ("4Gi", "512Mi", "1G", "1000").
long long cpu_millicores(const std::string& cpu);
long long memory_bytes(const std::string& memory);

// The controllers the values need (cpu, memory, pids: the part of each file
// name before the dot) that `subtree_control`, the parent's
// cgroup.subtree_control, does not pass on to its children. Pure.
std::vector<std::string>
missing_controllers(const std::string& subtree_control,
                    const std::vector<std::pair<std::string, std::string>>& values);

// A new cgroup below the caller's own one (unified hierarchy), or nullopt
// with the reason when cgroup v2 is not mounted there, does not give the
// controllers `values` need, or is not writable.
struct CgroupPlace {
    std::optional<std::string> directory;
    std::string reason;
};
CgroupPlace make_sandbox_cgroup(const std::string& id,
                                const std::vector<std::pair<std::string, std::string>>& values);

// Writes the values and moves `pid` in; returns the first problem, if any.
std::optional<std::string>
apply_cgroup(const std::string& directory,
             const std::vector<std::pair<std::string, std::string>>& values, int pid);

} // namespace osf::backends::local
