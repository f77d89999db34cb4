// Parsing a sandbox CLI's command line, with one-line usage errors (exit 2).
// Shared by every sandbox CLI.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <optional>
#include <string>

namespace osf::commands {

// Parses (running the chosen subcommand's callback): nullopt when a
// subcommand ran, else the exit code of --help/--version (0) or of a usage
// error (2, printed as one line with `prefix`). Shared by every sandbox CLI.
std::optional<int> parse_cli(CLI::App& app, std::ostream& out, std::ostream& err,
                             const std::string& prefix, int argc, const char* const* argv);

} // namespace osf::commands
