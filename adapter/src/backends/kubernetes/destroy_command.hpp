// sandbox-kubernetes destroy <ID>: removes every object labelled with the ID.
// Snapshots (labelled osf.snapshot.of) stay. --save-log FILE first copies the
// egress log, signed up to its last line and verified against the cluster's
// key, and removes nothing when it cannot.
#pragma once

#include "commands/command_context.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace osf::commands {

struct DestroyOptions {
    std::string id;
    std::string save_log; // a file that must not exist yet; empty: do not save
};

void setup_destroy(CLI::App& app, CommandContext& context);
int run_destroy(CommandContext& context, const DestroyOptions& options);

} // namespace osf::commands
