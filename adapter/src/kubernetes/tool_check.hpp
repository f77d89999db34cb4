// After a sandbox starts, create checks that its image has what the adapter's
// own commands run inside it (sh: exec's wrapper and the restore step; env:
// exec; tar: copy and snapshot; cp: a sandbox started from a snapshot of this
// one) and the tools OSF_SANDBOX_REQUIRED_TOOLS names. Anything missing fails
// create (exit 1, the sandbox removed) naming each tool and what needs it,
// instead of a late kubectl error in another command.
#pragma once

#include "kubernetes/kubectl/kubectl.hpp"
#include "kubernetes/operation_context.hpp"

#include <optional>
#include <string>
#include <vector>

namespace osf::kubernetes {

// The command create runs in the sandbox: prints the name of each missing tool.
std::vector<std::string> tool_check_command(const std::vector<std::string>& extra_tools);

// Why the image does not do, from one run of tool_check_command (kubectl's
// result): the missing tools, each with what needs it; or that the check
// itself could not run. nullopt when nothing is missing.
std::optional<std::string> tool_problem(const kubectl::KubectlResult& result);

// Runs the check in `pod`; CommandFailed with tool_problem's words.
void check_sandbox_tools(OperationContext& context, kubectl::Kubectl& kube, const std::string& pod,
                         const std::vector<std::string>& extra_tools);

} // namespace osf::kubernetes
