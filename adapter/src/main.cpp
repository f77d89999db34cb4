// sandbox-kubernetes: wiring only. The real kubectl runner, the process's
// variables, streams, clocks and signals go into the command context.
#include "cli/bash_completion.hpp"
#include "commands/command_context.hpp"
#include "commands/interrupt.hpp"
#include "commands/register_commands.hpp"
#include "kubectl/process_kubectl_runner.hpp"
#include "kubectl/version_checking_runner.hpp"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <random>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

int main(int argc, char** argv) {
    osf::commands::install_interrupt_handlers();
    osf::kubectl::ProcessKubectlRunner process_runner;
    osf::kubectl::VersionCheckingRunner runner{process_runner}; // kubectl >= 1.30, asked once
    osf::commands::CommandContext context{
        .runner = runner,
        .getenv = [](const std::string& name) -> std::optional<std::string> {
            const char* value = std::getenv(name.c_str());
            return value ? std::optional<std::string>(value) : std::nullopt;
        },
        .file_exists =
            [](const std::string& path) {
                struct stat info {};
                return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
            },
        .out = std::cout,
        .err = std::cerr,
        .now = [] { return std::chrono::steady_clock::now(); },
        .wall_clock = [] { return std::chrono::system_clock::now(); },
        .sleep = [](std::chrono::milliseconds duration) { std::this_thread::sleep_for(duration); },
        .pending_signal = [] { return osf::commands::pending_signal(); },
        .random_bytes =
            [] {
                std::random_device device; // /dev/urandom
                std::array<std::uint8_t, 6> bytes{};
                for (auto& byte : bytes)
                    byte = static_cast<std::uint8_t>(device());
                return bytes;
            },
        .terminal = ::isatty(0) && ::isatty(1),
    };
    CLI::App app{"sandbox-kubernetes: agent-sandbox sandboxes behind their own egress proxy"};
    osf::commands::register_commands(app, context);
    osf::cli::add_bash_completion_flag(app, "sandbox-kubernetes", std::cout);
    return osf::commands::run_cli(app, context, argc, argv);
}
