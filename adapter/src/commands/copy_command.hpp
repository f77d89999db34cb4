// sandbox-kubernetes copy <from> <to>: one side is <ID>:<path> (relative paths
// are below /workspace), the other a local path. Uses kubectl cp (tar).
#pragma once

#include "commands/command_context.hpp"

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace osf::commands {

struct CopyOptions {
    std::string from;
    std::string to;
};

// One side of a copy. A sandbox side is "<ID>:<path>"; an argument is a
// sandbox side when it holds ':' and no '/' before it (./a:b is local).
struct CopyEndpoint {
    std::optional<std::string> id; // set for the sandbox side
    std::string path;              // absolute inside the sandbox
};

// Throws UsageError for an invalid ID.
CopyEndpoint parse_copy_endpoint(const std::string& text);

void setup_copy(CLI::App& app, CommandContext& context);
int run_copy(CommandContext& context, const CopyOptions& options);

} // namespace osf::commands
