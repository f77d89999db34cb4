// list: every sandbox of the state root, its status, age, expiry and the
// policy its stored spec says (the one in force), oldest first.
#pragma once

#include "local/operations/operation_context.hpp"
#include "sandbox/backend.hpp"

#include <vector>

namespace osf::local::operations {

std::vector<sandbox::SandboxRow> list(OperationContext& context);

} // namespace osf::local::operations
