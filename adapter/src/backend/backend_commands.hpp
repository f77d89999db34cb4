// The command layer over a Backend: the same subcommands, arguments, exit
// codes and messages as sandbox-kubernetes (commands/), for a CLI whose
// sandboxes live elsewhere. Parsing, IDs, specs and errors are the shared
// code of commands/ and manifests/; only the work is the backend's.
#pragma once

#include "backend/backend.hpp"
#include "manifests/secret_plan.hpp"

#include <CLI/CLI.hpp>
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

namespace osf::backend {

struct BackendContext {
    Backend& backend;
    std::string program; // the prefix of every error line: "<program>: "
    manifests::EnvLookup getenv;
    manifests::FileExists file_exists;
    std::ostream& out;
    std::ostream& err;
    std::function<std::chrono::system_clock::time_point()> wall_clock;
    std::function<std::array<std::uint8_t, 6>()> random_bytes;
    // The signal (SIGINT, SIGTERM) received since start, 0 when none.
    std::function<int()> pending_signal;
    // True when stdin and stdout are a terminal (exec then passes it on).
    bool terminal = false;
    int exit_code = 0;
};

void register_backend_commands(CLI::App& app, BackendContext& context);

// Parses and runs: returns the exit code (2 for a usage error, 0 for --help).
int run_backend_cli(CLI::App& app, BackendContext& context, int argc, const char* const* argv);

} // namespace osf::backend
