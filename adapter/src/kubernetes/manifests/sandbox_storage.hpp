// What bounds a sandbox's use of the node: cpu, memory and ephemeral-storage
// requests and limits, the size of /workspace, and the writable directories a
// non-root or read-only sandbox needs (an in-memory /tmp, a home directory).
#pragma once

#include "osf/spec.hpp"

#include <nlohmann/json.hpp>

namespace osf::kubernetes::manifests {

// Used when neither the spec nor a named template's container says.
inline constexpr const char* kDefaultCpu = "1";
inline constexpr const char* kDefaultMemory = "2Gi";
inline constexpr const char* kDefaultStorage = "10Gi";

inline constexpr const char* kTmpVolume = "osf-tmp";
inline constexpr const char* kTmpDir = "/tmp";
// In memory, so it counts against the container's memory limit.
inline constexpr const char* kTmpSizeLimit = "256Mi";
inline constexpr const char* kHomeVolume = "osf-home";
inline constexpr const char* kHomeDir = "/home/sandbox";

// The sandbox container's resources: the spec's cpu, memory and storage as
// requests = limits; where the spec is silent, the template's own values, or
// the defaults above.
nlohmann::json sandbox_resources(const nlohmann::json& template_resources, const osf::Spec& spec);

// True when the sandbox needs its own home directory and /tmp: it runs as the
// spec's user (whose home may not exist in the image) or on a read-only root.
bool needs_writable_home(const osf::Spec& spec);

// Adds the /tmp (read-only root only) and home emptyDirs to the pod and mounts
// them in `container`, unless the template already mounts something there.
void add_writable_dirs(nlohmann::json& pod_spec, nlohmann::json& container, const osf::Spec& spec);

} // namespace osf::kubernetes::manifests
