// sandbox-kubernetes resume <ID>: a new egress pod, its CA into the CA
// ConfigMap, then the sandbox pod again on the same workspace claim.
#pragma once

#include "commands/command_context.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace osf::commands {

struct ResumeOptions {
    std::string id;
};

void setup_resume(CLI::App& app, CommandContext& context);
int run_resume(CommandContext& context, const ResumeOptions& options);

} // namespace osf::commands
