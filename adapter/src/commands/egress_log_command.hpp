// sandbox-kubernetes egress-log <ID>: the proxy's JSON-lines egress log.
#pragma once

#include "commands/command_context.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace osf::commands {

struct EgressLogOptions {
    std::string id;
};

void setup_egress_log(CLI::App& app, CommandContext& context);
int run_egress_log(CommandContext& context, const EgressLogOptions& options);

} // namespace osf::commands
