// What every subcommand runs with: the kubectl runner, the variables, the
// output streams, the clock and the interrupt flag. main() wires the real
// ones; unit tests substitute fakes.
#pragma once

#include "commands/command_errors.hpp"
#include "kubernetes/kubectl/kubectl_runner.hpp"
#include "sandbox/secret_plan.hpp"
#include "sandbox/settings.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

namespace osf::kubernetes {

struct CommandContext {
    kubectl::KubectlRunner& runner;
    sandbox::EnvLookup getenv;
    sandbox::FileExists file_exists;
    std::ostream& out;
    std::ostream& err;
    std::function<std::chrono::steady_clock::time_point()> now;
    std::function<std::chrono::system_clock::time_point()> wall_clock;
    std::function<void(std::chrono::milliseconds)> sleep;
    // The signal (SIGINT, SIGTERM) received since start, 0 when none.
    std::function<int()> pending_signal;
    std::function<std::array<std::uint8_t, 6>()> random_bytes;
    // True when stdin and stdout are a terminal (exec then asks for a TTY).
    bool terminal = false;
    // How often start-up progress is polled.
    std::chrono::milliseconds poll_interval{1000};
    // Set by the subcommand that ran.
    int exit_code = 0;
};

// Throws commands::Interrupted when a signal is pending.
inline void check_interrupted(const CommandContext& context) {
    commands::check_interrupted(context.pending_signal);
}

} // namespace osf::kubernetes
