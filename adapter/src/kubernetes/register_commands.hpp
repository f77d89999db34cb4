// sandbox-kubernetes' subcommands: the shared command layer
// (commands/backend_commands) over a KubernetesBackend, with sandbox-kubernetes'
// help texts and footer. main() and the unit tests (with a fake kubectl) call it.
#pragma once

#include "commands/cli_parsing.hpp"
#include "kubernetes/kubectl/cluster_flags.hpp"
#include "kubernetes/operation_context.hpp"

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <optional>
#include <string>

namespace osf::kubernetes {

// With `flags`, every command also takes kubectl's -n/--namespace, --context
// and --kubeconfig (before or after the subcommand's name) into them; main()
// makes the runner and the variables read them (kubernetes/kubectl/cluster_flags.hpp).
void register_commands(CLI::App& app, OperationContext& context,
                       kubectl::ClusterFlags* flags = nullptr);

// Parses and runs: returns the exit code (2 for a usage error, 0 for --help).
int run_cli(CLI::App& app, OperationContext& context, int argc, const char* const* argv);

} // namespace osf::kubernetes
