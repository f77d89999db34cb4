// One file per subcommand (commands/<name>.cpp): each adds its options to the
// app and runs its work through the context's Backend. register_backend_commands
// (backend_commands.cpp) calls them in the order --help lists them.
#pragma once

#include "commands/command_context.hpp"

#include <CLI/CLI.hpp>
#include <functional>

namespace osf::commands {

// Runs a subcommand's body: its exit code, or its error printed with the
// program's prefix and the error's exit code, into context.exit_code.
void guarded(CommandContext& context, const std::function<int()>& body);

void setup_create(CLI::App& app, CommandContext& context);
void setup_exec(CLI::App& app, CommandContext& context);
void setup_copy(CLI::App& app, CommandContext& context);
void setup_snapshot(CLI::App& app, CommandContext& context);
void setup_destroy(CLI::App& app, CommandContext& context);
void setup_list(CLI::App& app, CommandContext& context);
void setup_egress_log(CLI::App& app, CommandContext& context);
void setup_gc(CLI::App& app, CommandContext& context);
void setup_extend(CLI::App& app, CommandContext& context);
void setup_suspend(CLI::App& app, CommandContext& context);
void setup_resume(CLI::App& app, CommandContext& context);

} // namespace osf::commands
