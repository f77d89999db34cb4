#pragma once
// A bash completion script for a CLI11 program, read off its own option tree,
// so it cannot fall behind the options the program accepts.

#include <CLI/CLI.hpp>
#include <string>

namespace osf::cli {

// The script for `program` (the command name users type): completes
// subcommands, the options of the subcommand typed so far, and files after an
// option that takes a value. Hidden options and subcommands (empty group) are
// left out.
std::string bash_completion(const CLI::App& app, const std::string& program);

// Adds the hidden `--bash-completion` flag to `app`: it prints the script for
// `program` to `out` and ends parsing as --help does (CLI::Success, exit 0).
void add_bash_completion_flag(CLI::App& app, const std::string& program, std::ostream& out);

} // namespace osf::cli
