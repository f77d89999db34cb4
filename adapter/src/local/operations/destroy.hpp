// destroy: the sandbox's supervisor stopped, its image's working container and
// everything of it removed.
#pragma once

#include "local/operations/operation_context.hpp"

namespace osf::local::operations {

void destroy(OperationContext& context, const std::string& id);

} // namespace osf::local::operations
