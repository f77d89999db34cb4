// sandbox-kubernetes create [--dry-run] <spec.json>
#pragma once

#include "commands/command_context.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace osf::commands {

struct CreateOptions {
    std::string spec_path;
    bool dry_run = false;
};

void setup_create(CLI::App& app, CommandContext& context);
int run_create(CommandContext& context, const CreateOptions& options);

} // namespace osf::commands
