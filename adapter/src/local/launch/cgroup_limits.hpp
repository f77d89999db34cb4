// CPU, memory and process limits for a local sandbox: the values a spec
// asks for, as cgroup v2 and cgroup v1 files. Pure; cgroup_placement writes
// them.
#pragma once

#include "osf/spec.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace osf::local {

inline constexpr long long kSandboxPidsMax = 4096;

// The host's size, for the limits a spec leaves out (cgroup_placement reads it).
struct HostSize {
    long long memory_bytes = 0; // physical memory
    long long cpus = 0;         // CPUs online
};

// The spec with its limits made explicit: without `cpu`, half the host's CPUs
// (at least one); without `memory`, half its memory; what the spec says
// stands. One sandbox never takes the whole machine unless its spec asks.
// An unknown size (0) leaves the field unset. Pure.
osf::Spec with_default_limits(osf::Spec spec, const HostSize& host);

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

// The same limits on cgroup v1: {controller, file, value}. cpu.cfs_quota_us
// with its period; memory.limit_in_bytes, and memory.memsw.limit_in_bytes
// (memory plus swap) to the same value where the kernel accounts swap, so
// swap is no way around the limit; pids.max.
struct CgroupV1Value {
    std::string controller;
    std::string file;
    std::string value;
    bool optional = false; // written only where the file exists
};
std::vector<CgroupV1Value> cgroup_v1_values(const osf::Spec& spec);

// The sizes of the sandbox's in-memory file systems (their pages count
// against its memory): /tmp the spec's tmpSize, else as large as the memory
// limit (1 GiB without one); /dev/shm 64 MiB (or the memory limit when smaller).
struct TmpfsSizes {
    long long tmp;
    long long shm;
};
TmpfsSizes tmpfs_sizes(const osf::Spec& spec);

} // namespace osf::local
