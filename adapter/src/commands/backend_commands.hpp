// The command layer both CLIs are: every subcommand's arguments, checks,
// messages and exit codes over a sandbox::Backend, which does the work.
#pragma once

#include "commands/command_context.hpp"
#include "sandbox/policy_changer.hpp"

#include <CLI/CLI.hpp>

namespace osf::commands {

// Adds every subcommand to `app`; each runs its work through `context.backend`,
// which must be set.
void register_backend_commands(CLI::App& app, CommandContext& context);

// allow and revoke (commands/policy.cpp), for a backend that can change a
// running sandbox's policy (sandbox-local; sandbox-kubernetes not yet).
void setup_policy_commands(CLI::App& app, CommandContext& context, sandbox::PolicyChanger& changer);

// Parses and runs: returns the exit code (2 for a usage error, 0 for --help).
int run_backend_cli(CLI::App& app, CommandContext& context, int argc, const char* const* argv);

} // namespace osf::commands
