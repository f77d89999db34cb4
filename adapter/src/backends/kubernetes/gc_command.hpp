// sandbox-kubernetes gc [--dry-run] [--save-logs DIR]: removes expired
// sandboxes, sandboxes whose egress or sandbox pod failed or ended, and parts
// left without a claim for OSF_SANDBOX_GC_GRACE. One line per sandbox on
// stdout: "<ID> <reason>". --save-logs first keeps each one's verified egress
// log as DIR/<ID>.jsonl (+ .pub); a sandbox whose log is not kept stays.
#pragma once

#include "commands/command_context.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace osf::commands {

struct GcOptions {
    bool dry_run = false;
    std::string save_logs; // an existing writable directory; empty: do not save
};

void setup_gc(CLI::App& app, CommandContext& context);
int run_gc(CommandContext& context, const GcOptions& options);

} // namespace osf::commands
