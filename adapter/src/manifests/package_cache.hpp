// Package caches: /cache in every sandbox, with the common package managers'
// cache variables pointing into it. With the spec's `cache` it is a shared
// ReadWriteMany claim (warm across sandboxes, and writable by each of them);
// without, an emptyDir, which counts against the sandbox's ephemeral storage.
// Pure: JSON in, JSON out.
#pragma once

#include "manifests/sandbox_request.hpp"

#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

namespace osf::manifests {

inline constexpr const char* kCacheDir = "/cache";
inline constexpr const char* kCacheVolume = "osf-package-cache";

// Variable -> where it points. The spec's own `env` wins over these.
inline constexpr std::pair<std::string_view, std::string_view> kCacheVariables[] = {
    {"XDG_CACHE_HOME", "/cache"},    {"npm_config_cache", "/cache/npm"},
    {"PIP_CACHE_DIR", "/cache/pip"}, {"GOMODCACHE", "/cache/go/mod"},
    {"GOCACHE", "/cache/go/build"},  {"COMPOSER_CACHE_DIR", "/cache/composer"},
};

// The pod template with the cache volume (the claim or an emptyDir), mounted
// at /cache in its first container, and the variables.
nlohmann::json with_package_cache(nlohmann::json pod_template, const SandboxRequest& request);

} // namespace osf::manifests
