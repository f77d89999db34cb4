// sandbox-kubernetes copy: one side is a sandbox's path, the other a local
// path. Uses kubectl cp (tar).
#pragma once

#include "commands/command_context.hpp"
#include "commands/copy_endpoint.hpp"

namespace osf::commands {

// Exactly one of `from` and `to` has an ID (the command layer checked it).
void copy_files(CommandContext& context, const CopyEndpoint& from, const CopyEndpoint& to);

} // namespace osf::commands
