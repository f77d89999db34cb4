// sandbox-kubernetes snapshot <ID>: copies /workspace into a new PVC and
// prints the name of a SandboxTemplate whose pods start from that copy.
#pragma once

#include "commands/command_context.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <string>

namespace osf::commands {

struct SnapshotOptions {
    std::string id;
};

// "20261129185500": UTC, sortable, valid in object names.
std::string snapshot_stamp(std::chrono::system_clock::time_point time);

void setup_snapshot(CLI::App& app, CommandContext& context);
int run_snapshot(CommandContext& context, const SnapshotOptions& options);

} // namespace osf::commands
