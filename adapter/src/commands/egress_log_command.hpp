// sandbox-kubernetes egress-log <ID>: the proxy's JSON-lines egress log;
// --follow streams it, --verify checks its chain and checkpoints against the
// key the cluster holds, --summary prints what a reviewer asks first.
#pragma once

#include "commands/command_context.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace osf::commands {

struct EgressLogOptions {
    std::string id;
    bool follow = false;
    bool verify = false;
    bool summary = false;
    bool json = false;
};

void setup_egress_log(CLI::App& app, CommandContext& context);
int run_egress_log(CommandContext& context, const EgressLogOptions& options);

} // namespace osf::commands
