// sandbox-kubernetes resume: a new egress pod, its CA into the CA ConfigMap,
// then the sandbox pod again on the same workspace claim.
#pragma once

#include "kubernetes/operation_context.hpp"

#include <string>

namespace osf::kubernetes {

// False (nothing done) when it is not suspended.
bool resume_sandbox(OperationContext& context, const std::string& id);

} // namespace osf::kubernetes
