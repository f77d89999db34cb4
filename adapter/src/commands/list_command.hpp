// sandbox-kubernetes list [--json]: one line per sandbox in the namespace.
#pragma once

#include "commands/command_context.hpp"

#include <CLI/CLI.hpp>

namespace osf::commands {

struct ListOptions {
    bool json = false;
};

void setup_list(CLI::App& app, CommandContext& context);
int run_list(CommandContext& context, const ListOptions& options);

} // namespace osf::commands
