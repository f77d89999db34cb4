// sandbox-kubernetes copy <from> <to>: one side is <ID>:<path> (relative paths
// are below /workspace), the other a local path. Uses kubectl cp (tar).
#pragma once

#include "commands/command_context.hpp"
#include "commands/copy_endpoint.hpp"

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace osf::commands {

struct CopyOptions {
    std::string from;
    std::string to;
};

void setup_copy(CLI::App& app, CommandContext& context);
int run_copy(CommandContext& context, const CopyOptions& options);

} // namespace osf::commands
