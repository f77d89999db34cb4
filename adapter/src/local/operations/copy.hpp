// copy: a file or directory into or out of the sandbox, bounded by its
// storage and OSF_SANDBOX_COPY_* (copy/ holds the walk and the policy).
#pragma once

#include "local/operations/operation_context.hpp"
#include "sandbox/backend.hpp"

namespace osf::local::operations {

void copy(OperationContext& context, const sandbox::CopyRequest& request);

} // namespace osf::local::operations
