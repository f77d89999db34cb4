// OSF_UPSTREAM_CA_BUNDLE for a proxy in the cluster: the file is read here,
// where the variable is set, and its certificates go to the egress pod in a
// ConfigMap (egress_objects.hpp); the sandbox never sees them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace osf::kubernetes {

// A ConfigMap holds at most 1 MiB; a trust bundle is far smaller.
inline constexpr std::size_t kUpstreamCaMaxBytes = 512 * 1024;

// What is wrong with a bundle's text (one line), or nullopt: it must hold at
// least one PEM certificate and nothing the proxy would not read as PEM.
std::optional<std::string> upstream_ca_problem(const std::string& text);

// The bundle's text, or "" without a path. Throws commands::UsageError (exit
// 2) naming the variable and the path when it cannot be read or is not a
// bundle.
std::string read_upstream_ca_bundle(const std::optional<std::string>& path);

} // namespace osf::kubernetes
