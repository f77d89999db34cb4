// sandbox-kubernetes egress-log <ID>: the proxy's JSON-lines egress log;
// --follow streams it, --verify checks its chain and checkpoints against the
// key the cluster holds, --summary prints what a reviewer asks first.
#pragma once

#include "commands/command_context.hpp"
#include "commands/egress_log_options.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace osf::commands {

void setup_egress_log(CLI::App& app, CommandContext& context);
int run_egress_log(CommandContext& context, const EgressLogOptions& options);

} // namespace osf::commands
