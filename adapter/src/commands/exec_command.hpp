// sandbox-kubernetes exec <ID> -- <command>...
#pragma once

#include "commands/command_context.hpp"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace osf::commands {

struct ExecOptions {
    std::string id;
    std::vector<std::string> command;
};

void setup_exec(CLI::App& app, CommandContext& context);
// Exits with the command's own exit code.
int run_exec(CommandContext& context, const ExecOptions& options);

} // namespace osf::commands
