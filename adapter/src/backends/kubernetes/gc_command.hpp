// sandbox-kubernetes gc: what expired or failed sandboxes and parts left
// without a claim left behind (manifests/gc_plan), and removing it.
#pragma once

#include "commands/command_context.hpp"
#include "manifests/gc_plan.hpp"

#include <string>
#include <vector>

namespace osf::commands {

std::vector<manifests::GcRemoval> plan_gc(CommandContext& context);
void gc_remove_sandbox(CommandContext& context, const std::string& id);

} // namespace osf::commands
