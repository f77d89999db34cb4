// What create and resume share: the sandbox's supervisor started (holding
// its lock) and waited for until it says ready (protocol/start_status); on a
// failure or interruption it is stopped (the files stay) before the throw.
#pragma once

#include "local/operations/operation_context.hpp"

#include <ostream>

namespace osf::local::operations {

void start_supervisor(OperationContext& context, const SandboxPaths& paths, std::ostream& progress);

} // namespace osf::local::operations
