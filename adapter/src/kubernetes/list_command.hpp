// sandbox-kubernetes list: the sandboxes in the namespace.
#pragma once

#include "kubernetes/command_context.hpp"
#include "sandbox/sandbox_list.hpp"

#include <vector>

namespace osf::kubernetes {

// CommandFailed when there are none because the namespace does not exist.
std::vector<sandbox::SandboxRow> list_sandboxes(KubeContext& context);

} // namespace osf::kubernetes
