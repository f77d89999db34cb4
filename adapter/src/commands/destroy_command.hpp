// sandbox-kubernetes destroy <ID>: removes every object labelled with the ID.
// Snapshots (labelled osf.snapshot.of) stay.
#pragma once

#include "commands/command_context.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace osf::commands {

struct DestroyOptions {
    std::string id;
};

void setup_destroy(CLI::App& app, CommandContext& context);
int run_destroy(CommandContext& context, const DestroyOptions& options);

} // namespace osf::commands
