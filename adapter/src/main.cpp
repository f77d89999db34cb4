// sandbox-kubernetes: wiring only. The real kubectl runner, the process's
// variables, streams, clocks and signals go into the command context, beneath
// the same command layer as sandbox-local (register_commands: KubernetesBackend).
#include "cli/bash_completion.hpp"
#include "commands/interrupt.hpp"
#include "commands/process_environment.hpp"
#include "kubernetes/kubectl/cluster_flags.hpp"
#include "kubernetes/kubectl/process_kubectl_runner.hpp"
#include "kubernetes/kubectl/version_checking_runner.hpp"
#include "kubernetes/operation_context.hpp"
#include "kubernetes/register_commands.hpp"
#include "osf/process_env.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <thread>

int main(int argc, char** argv) {
    osf::commands::install_interrupt_handlers();
    osf::kubernetes::kubectl::ClusterFlags flags; // -n, --context, --kubeconfig
    osf::kubernetes::kubectl::ProcessKubectlRunner process_runner;
    osf::kubernetes::kubectl::ClusterFlagsRunner flagged_runner{process_runner, flags};
    osf::kubernetes::kubectl::VersionCheckingRunner runner{
        flagged_runner}; // kubectl >= 1.30, asked once
    osf::kubernetes::OperationContext context{
        {
            .program = "sandbox-kubernetes",
            .getenv = osf::kubernetes::kubectl::namespaced_getenv(
                flags, osf::process_getenv,
                [&flagged_runner] {
                    return osf::kubernetes::kubectl::context_namespace(flagged_runner);
                }),
            .file_exists = osf::commands::regular_file_exists,
            .out = std::cout,
            .err = std::cerr,
            .now = [] { return std::chrono::steady_clock::now(); },
            .wall_clock = osf::commands::wall_clock_now,
            .sleep =
                [](std::chrono::milliseconds duration) { std::this_thread::sleep_for(duration); },
            .pending_signal = [] { return osf::commands::pending_signal(); },
            .random_bytes = osf::commands::random_id_bytes,
            .terminal = osf::commands::stdio_is_terminal(),
        },
        runner};
    CLI::App app{"sandbox-kubernetes: agent-sandbox sandboxes behind their own egress proxy"};
    osf::kubernetes::register_commands(app, context, &flags);
    osf::cli::add_bash_completion_flag(app, "sandbox-kubernetes", std::cout);
    return osf::kubernetes::run_cli(app, context, argc, argv);
}
