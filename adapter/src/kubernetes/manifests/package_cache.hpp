// Package caches: /cache in every sandbox, with the common package managers'
// cache variables pointing into it. With the spec's `cache` it is a shared
// ReadWriteMany claim (warm across sandboxes, and writable by each of them);
// without, an emptyDir, which counts against the sandbox's ephemeral storage.
// Pure: JSON in, JSON out.
#pragma once

#include "sandbox/sandbox_paths.hpp"
#include "sandbox/sandbox_request.hpp"

#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

namespace osf::kubernetes::manifests {

inline constexpr const char* kCacheVolume = "osf-package-cache";

// The pod template with the cache volume (the claim or an emptyDir), mounted
// at /cache in its first container, and the variables.
nlohmann::json with_package_cache(nlohmann::json pod_template,
                                  const sandbox::SandboxRequest& request);

} // namespace osf::kubernetes::manifests
