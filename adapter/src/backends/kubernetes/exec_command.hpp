// sandbox-kubernetes exec [--timeout <duration>] <ID> -- <command>...
#pragma once

#include "commands/command_context.hpp"
#include "commands/exec_timeout.hpp"
#include "manifests/settings.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <string>
#include <vector>

namespace osf::commands {

struct ExecOptions {
    std::string id;
    std::vector<std::string> command;
    std::string timeout; // a duration; empty: OSF_SANDBOX_EXEC_TIMEOUT
};

void setup_exec(CLI::App& app, CommandContext& context);
// Exits with the command's own exit code; 137 at the timeout, 128 + signal
// when interrupted (the remote command is stopped in both cases).
int run_exec(CommandContext& context, const ExecOptions& options);

} // namespace osf::commands
