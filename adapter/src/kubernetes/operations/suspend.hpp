// sandbox-kubernetes suspend: stops the sandbox's pods and keeps its
// persistent workspace; resume starts them again (resume.hpp).
#pragma once

#include "kubernetes/operation_context.hpp"

#include <string>

namespace osf::kubernetes {

// False (nothing done) when it is already suspended.
bool suspend_sandbox(OperationContext& context, const std::string& id);

} // namespace osf::kubernetes
