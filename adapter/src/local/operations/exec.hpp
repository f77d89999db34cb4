// exec: a command run in the sandbox, with the CLI's streams.
#pragma once

#include "local/operations/operation_context.hpp"
#include "sandbox/backend.hpp"

namespace osf::local::operations {

sandbox::ExecResult exec(OperationContext& context, const sandbox::ExecRequest& request);

} // namespace osf::local::operations
