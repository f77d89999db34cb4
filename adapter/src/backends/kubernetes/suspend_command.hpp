// sandbox-kubernetes suspend <ID>: stops the sandbox's pods and keeps its
// persistent workspace; resume <ID> starts them again (resume_command.hpp).
#pragma once

#include "commands/command_context.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace osf::commands {

struct SuspendOptions {
    std::string id;
};

void setup_suspend(CLI::App& app, CommandContext& context);
int run_suspend(CommandContext& context, const SuspendOptions& options);

} // namespace osf::commands
