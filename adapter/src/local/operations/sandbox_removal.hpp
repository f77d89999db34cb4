// What destroy, gc and an expired resume share: everything of a sandbox that
// is gone removed (its listeners' file, its cgroups, its workspace's file
// system, its directory). Nothing of it may run any more.
#pragma once

#include "local/operations/operation_context.hpp"

namespace osf::local::operations {

void remove_sandbox(OperationContext& context, const SandboxPaths& paths);

} // namespace osf::local::operations
