// gc: the sandboxes nothing holds any more (supervisor gone, or expired),
// and the removal of one, checked again under its lock.
#pragma once

#include "local/operations/operation_context.hpp"
#include "sandbox/backend.hpp"

#include <vector>

namespace osf::local::operations {

std::vector<sandbox::Backend::Removal> gc_plan(OperationContext& context);
// false when the sandbox is no longer one to remove.
bool gc_remove(OperationContext& context, const std::string& id);

} // namespace osf::local::operations
