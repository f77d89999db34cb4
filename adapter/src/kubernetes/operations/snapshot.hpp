// sandbox-kubernetes snapshot: copies /workspace into a new PVC and names a
// SandboxTemplate whose pods start from that copy.
#pragma once

#include "kubernetes/operation_context.hpp"

#include <string>

namespace osf::kubernetes {

// Returns the SandboxTemplate's name; a half-made snapshot is removed whole.
std::string take_snapshot(OperationContext& context, const std::string& id,
                          const std::string& stamp);

} // namespace osf::kubernetes
