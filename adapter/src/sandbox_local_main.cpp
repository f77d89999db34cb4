// sandbox-local: wiring only. The local backend under the shared command
// layer; the same binary is also the sandbox's supervisor and, inside the
// sandbox, its agent (hidden entry points, started by create only).
#include "backend/backend_commands.hpp"
#include "backends/local/local_backend.hpp"
#include "backends/local/sandbox_agent.hpp"
#include "backends/local/supervisor.hpp"
#include "cli/bash_completion.hpp"
#include "commands/interrupt.hpp"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace {

constexpr const char* kFooter = R"(
Variables: OSF_SANDBOX_LOCAL_STATE_DIR (default /var/lib/osf-sandbox-local as root,
  $XDG_STATE_HOME/osf-sandbox-local otherwise), OSF_EGRESS_PROXY_BIN (default: next to
  sandbox-local, else PATH), OSF_SANDBOX_START_TIMEOUT (seconds, default 300),
  OSF_SECRETS_DIR (default /run/secrets), OSF_SECRET_<NAME>, OSF_OPENBAO_ADDR,
  OSF_OPENBAO_TOKEN, OSF_OPENBAO_MOUNT, OSF_SANDBOX_HOST_ALIASES, OSF_UPSTREAM_CA_BUNDLE.
Exit codes: 0 ok; 1 failure (unknown ID, start failure, no bwrap); 2 bad usage,
  ID, spec, template, secret or variable (nothing started); 130/143 create interrupted
  (cleaned up); exec: the command's own code.)";

std::optional<std::string> env_lookup(const std::string& name) {
    const char* value = std::getenv(name.c_str());
    return value ? std::optional<std::string>(value) : std::nullopt;
}

} // namespace

int main(int argc, char** argv) {
    using namespace osf;
    const std::string_view first = argc >= 2 ? argv[1] : "";
    if (first == "__agent" && argc == 3)
        return backends::local::run_sandbox_agent(std::atoi(argv[2]));
    if (first == "__supervise" && argc == 5)
        return backends::local::run_supervisor(argv[2], std::atoi(argv[3]), std::atoi(argv[4]));

    commands::install_interrupt_handlers();
    std::error_code error;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
    backends::local::LocalBackend backend({
        .getenv = env_lookup,
        .pending_signal = [] { return commands::pending_signal(); },
        .wall_clock = [] { return std::chrono::system_clock::now(); },
        .self_executable = error ? std::string(argv[0]) : self.string(),
    });
    backend::BackendContext context{
        .backend = backend,
        .program = "sandbox-local",
        .getenv = env_lookup,
        .file_exists =
            [](const std::string& path) {
                struct stat info {};
                return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
            },
        .out = std::cout,
        .err = std::cerr,
        .wall_clock = [] { return std::chrono::system_clock::now(); },
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
    CLI::App app{"sandbox-local: sandboxes on this machine (bubblewrap, a network namespace with "
                 "only loopback) behind their own egress proxy"};
    app.footer(kFooter);
    backend::register_backend_commands(app, context);
    cli::add_bash_completion_flag(app, "sandbox-local", std::cout);
    return backend::run_backend_cli(app, context, argc, argv);
}
