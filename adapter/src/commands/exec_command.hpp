// sandbox-kubernetes exec [--timeout <duration>] <ID> -- <command>...
#pragma once

#include "commands/command_context.hpp"
#include "manifests/settings.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <string>
#include <vector>

namespace osf::commands {

// Exit code of an exec stopped at its timeout (128 + SIGKILL, as a shell
// reports a killed command).
inline constexpr int kExitExecTimeout = 137;

struct ExecOptions {
    std::string id;
    std::vector<std::string> command;
    std::string timeout; // a duration; empty: OSF_SANDBOX_EXEC_TIMEOUT
};

// --timeout's value, or OSF_SANDBOX_EXEC_TIMEOUT when empty; UsageError when
// it is not a duration. Shared with sandbox-local.
std::chrono::seconds exec_timeout(const std::string& timeout, const manifests::Settings& settings);
// The line after the program's prefix when exec stopped its command at the timeout.
std::string exec_timed_out_message(std::chrono::seconds timeout);

void setup_exec(CLI::App& app, CommandContext& context);
// Exits with the command's own exit code; 137 at the timeout, 128 + signal
// when interrupted (the remote command is stopped in both cases).
int run_exec(CommandContext& context, const ExecOptions& options);

} // namespace osf::commands
