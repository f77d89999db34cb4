// The variables a sandbox gets for the spec's AWS secret: the placeholder
// credentials the SDKs sign with (the proxy signs again with the real ones).
// Shared by sandbox-local and sandbox-kubernetes.
#pragma once

#include "osf/spec.hpp"

#include <string>
#include <utility>
#include <vector>

namespace osf::sandbox {

std::vector<std::pair<std::string, std::string>> aws_placeholder_variables(const osf::Spec& spec);

} // namespace osf::sandbox
