// What the Kubernetes backend's operations run with: the command layer's
// context (commands/command_context.hpp) and kubectl. main() wires the real
// ones; unit tests substitute a fake kubectl.
#pragma once

#include "commands/command_context.hpp"
#include "kubernetes/kubectl/kubectl_runner.hpp"

#include <chrono>
#include <utility>

namespace osf::kubernetes {

struct OperationContext : commands::CommandContext {
    OperationContext(commands::CommandContext command, kubectl::KubectlRunner& kubectl_runner)
        : commands::CommandContext(std::move(command)), runner(kubectl_runner) {}

    kubectl::KubectlRunner& runner;
    // How often start-up progress is polled.
    std::chrono::milliseconds poll_interval{1000};
};

} // namespace osf::kubernetes
