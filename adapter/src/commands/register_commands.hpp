// Registers every subcommand on the application.
#pragma once

#include "commands/command_context.hpp"

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <optional>
#include <string>

namespace osf::commands {

void register_commands(CLI::App& app, CommandContext& context);

// Parses and runs: returns the exit code (2 for a usage error, 0 for --help).
int run_cli(CLI::App& app, CommandContext& context, int argc, const char* const* argv);

// Parses (running the chosen subcommand's callback): nullopt when a
// subcommand ran, else the exit code of --help/--version (0) or of a usage
// error (2, printed as one line with `prefix`). Shared by every sandbox CLI.
std::optional<int> parse_cli(CLI::App& app, std::ostream& out, std::ostream& err,
                             const std::string& prefix, int argc, const char* const* argv);

} // namespace osf::commands
