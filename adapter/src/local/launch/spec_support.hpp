// What sandbox-local does with each spec field that concerns the machine
// rather than the proxy, decided before anything starts: every field either
// works as on Kubernetes or is refused naming the field (exit 2). Never
// silently ignored. Pure.
//   cpu, memory   cgroups (v2, or v1's cpu and memory controllers); refused
//                 where the caller cannot create them
//   storage, persistence.size
//                 the size of /workspace's own file system (root only);
//                 with both, persistence.size (the workspace claim's size)
//   persistence   /workspace is always on disk and kept by suspend/resume;
//                 storageClassName has no meaning here and is refused
//   cache         a shared directory (package_cache_dir.hpp)
#pragma once

#include "osf/spec.hpp"

#include <optional>
#include <string>
#include <vector>

namespace osf::local {

struct HostAbilities {
    bool root = false;                    // can mount the workspace's file system
    std::vector<std::string> controllers; // cgroup controllers the sandbox can get
    std::string cgroup_reason;            // why one is missing
};

// The message of exit 2, or nullopt when the spec can run here.
std::optional<std::string> refused_spec_fields(const osf::Spec& spec, const HostAbilities& host);

// The bytes /workspace is bounded to: persistence.size, else storage; 0: unbounded.
long long workspace_bound(const osf::Spec& spec);

} // namespace osf::local
