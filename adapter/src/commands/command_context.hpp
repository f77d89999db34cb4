// What every subcommand runs with: the kubectl runner, the variables, the
// output streams, the clock and the interrupt flag. main() wires the real
// ones; unit tests substitute fakes.
#pragma once

#include "kubectl/kubectl_runner.hpp"
#include "manifests/secret_plan.hpp"
#include "manifests/settings.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

namespace osf::commands {

struct CommandContext {
    kubectl::KubectlRunner& runner;
    manifests::EnvLookup getenv;
    manifests::FileExists file_exists;
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

} // namespace osf::commands
