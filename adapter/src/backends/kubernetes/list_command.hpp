// sandbox-kubernetes list [-o wide|json]: the sandbox IDs in the namespace,
// one per line (what `for id in $(sandbox-kubernetes list)` expects); `-o wide`
// a table with a header, `-o json` the objects.
#pragma once

#include "commands/command_context.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace osf::commands {

struct ListOptions {
    std::string output; // "" (IDs), "wide" or "json"
    bool json = false;  // --json, the same as -o json
};

void setup_list(CLI::App& app, CommandContext& context);
int run_list(CommandContext& context, const ListOptions& options);

} // namespace osf::commands
