// After a sandbox starts, create checks that its image has what the other
// commands run inside it: tar (copy, snapshot), and sh and cp (the restore
// step of a sandbox started from a snapshot). A missing tool is a warning on
// stderr naming the command that will fail, instead of a late kubectl error.
#pragma once

#include "commands/command_context.hpp"
#include "kubectl/kubectl.hpp"

#include <string>
#include <vector>

namespace osf::commands {

// The command create runs in the sandbox: prints the name of each missing tool.
std::vector<std::string> tool_check_command();

// The warnings for one run of tool_check_command (kubectl's result): one per
// missing tool, or one saying the check itself could not run.
std::vector<std::string> tool_warnings(const kubectl::KubectlResult& result);

// Runs the check in `pod` and prints its warnings to context.err.
void check_sandbox_tools(CommandContext& context, kubectl::Kubectl& kube, const std::string& pod);

} // namespace osf::commands
