// sandbox-kubernetes gc [--dry-run]: removes expired sandboxes, sandboxes
// whose egress or sandbox pod failed or ended, and parts left without a claim
// for OSF_SANDBOX_GC_GRACE. One line per sandbox on stdout: "<ID> <reason>".
#pragma once

#include "commands/command_context.hpp"

#include <CLI/CLI.hpp>

namespace osf::commands {

struct GcOptions {
    bool dry_run = false;
};

void setup_gc(CLI::App& app, CommandContext& context);
int run_gc(CommandContext& context, const GcOptions& options);

} // namespace osf::commands
