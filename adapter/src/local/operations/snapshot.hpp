// snapshot: the sandbox's workspace copied into the state root's snapshots,
// with its base template; create restores it (a snapshot as the template).
#pragma once

#include "local/operations/operation_context.hpp"

namespace osf::local::operations {

// The snapshot's name.
std::string snapshot(OperationContext& context, const std::string& id, const std::string& stamp);

} // namespace osf::local::operations
