// sandbox-kubernetes list: the sandboxes in the namespace.
#pragma once

#include "kubernetes/operation_context.hpp"
#include "sandbox/sandbox_list.hpp"

#include <vector>

namespace osf::kubernetes {

// CommandFailed when there are none because the namespace does not exist.
// Without `with_policy` the rows' policy is left empty (not read).
std::vector<sandbox::SandboxRow> list_sandboxes(OperationContext& context, bool with_policy);

} // namespace osf::kubernetes
