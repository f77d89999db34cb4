// sandbox-kubernetes snapshot <ID>: copies /workspace into a new PVC and
// prints the name of a SandboxTemplate whose pods start from that copy.
#pragma once

#include "commands/command_context.hpp"
#include "commands/snapshot_stamp.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <string>

namespace osf::commands {

struct SnapshotOptions {
    std::string id;
};

void setup_snapshot(CLI::App& app, CommandContext& context);
int run_snapshot(CommandContext& context, const SnapshotOptions& options);

} // namespace osf::commands
