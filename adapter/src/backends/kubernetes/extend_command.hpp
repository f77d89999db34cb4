// sandbox-kubernetes extend <ID> <duration>: moves the sandbox's expiry later
// (its claim's lifecycle.shutdownTime), within OSF_SANDBOX_MAX_LIFETIME of its
// creation. Prints the new expiry.
#pragma once

#include "commands/command_context.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace osf::commands {

struct ExtendOptions {
    std::string id;
    std::string duration;
};

void setup_extend(CLI::App& app, CommandContext& context);
int run_extend(CommandContext& context, const ExtendOptions& options);

} // namespace osf::commands
