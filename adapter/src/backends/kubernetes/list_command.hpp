// sandbox-kubernetes list: the sandboxes in the namespace.
#pragma once

#include "commands/command_context.hpp"
#include "manifests/sandbox_list.hpp"

#include <vector>

namespace osf::commands {

// CommandFailed when there are none because the namespace does not exist.
std::vector<manifests::SandboxRow> list_sandboxes(CommandContext& context);

} // namespace osf::commands
