// sandbox-local: wiring only. The local backend under the shared command
// layer; the same binary is also the sandbox's supervisor and, inside the
// sandbox, its agent (hidden entry points, started by create only).
#include "cli/bash_completion.hpp"
#include "commands/backend_commands.hpp"
#include "commands/interrupt.hpp"
#include "commands/process_environment.hpp"
#include "local/agent/proxy_connect.hpp"
#include "local/agent/sandbox_agent.hpp"
#include "local/local_backend.hpp"
#include "local/supervisor/supervisor.hpp"
#include "osf/process_env.hpp"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string_view>
#include <thread>

namespace {

constexpr const char* kFooter = R"(
Variables: OSF_SANDBOX_LOCAL_STATE_DIR (default /var/lib/osf-sandbox-local as root,
  $XDG_STATE_HOME/osf-sandbox-local otherwise), OSF_EGRESS_PROXY_BIN (default: next to
  sandbox-local, else PATH), OSF_SANDBOX_START_TIMEOUT (seconds, default 300),
  OSF_SECRETS_DIR (default /run/secrets), OSF_SECRET_<NAME>, OSF_OPENBAO_ADDR,
  OSF_OPENBAO_TOKEN, OSF_OPENBAO_MOUNT, OSF_SANDBOX_HOST_ALIASES, OSF_UPSTREAM_CA_BUNDLE,
  OSF_SANDBOX_DEFAULT_LIFETIME (default 8h), OSF_SANDBOX_MAX_LIFETIME (default 7d),
  OSF_SANDBOX_EXEC_TIMEOUT (default 1h); buildah's CONTAINERS_STORAGE_CONF for images.
Exit codes: 0 ok; 1 failure (unknown ID, start failure, no bwrap, an egress log that
  does not verify or was not saved); 2 bad usage, ID, spec, template, secret, variable,
  duration or --save-log(s) target (nothing started, nothing changed); 130/143 create,
  exec or egress-log -f interrupted (cleaned up, the command stopped); exec: the
  command's own code, 137 at its timeout.)";

} // namespace

int main(int argc, char** argv) {
    using namespace osf;
    const std::string_view first = argc >= 2 ? argv[1] : "";
    if (first == "__agent" && (argc == 3 || argc == 4))
        return osf::local::agent::run_sandbox_agent(std::atoi(argv[2]),
                                                    argc == 4 ? std::atoi(argv[3]) : -1);
    // ssh's ProxyCommand inside a sandbox (local/ssh_client_config.hpp).
    if (first == "__connect" && argc == 4)
        return osf::local::agent::run_proxy_connect(argv[2], argv[3]);
    if (first == "__supervise" && argc == 5)
        return osf::local::supervisor::run_supervisor(argv[2], std::atoi(argv[3]),
                                                      std::atoi(argv[4]));

    commands::install_interrupt_handlers();
    std::error_code error;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
    osf::local::LocalBackend backend({
        .getenv = osf::process_getenv,
        .pending_signal = [] { return commands::pending_signal(); },
        .wall_clock = commands::wall_clock_now,
        .self_executable = error ? std::string(argv[0]) : self.string(),
    });
    commands::CommandContext context{
        .program = "sandbox-local",
        .getenv = osf::process_getenv,
        .file_exists = commands::regular_file_exists,
        .out = std::cout,
        .err = std::cerr,
        .now = [] { return std::chrono::steady_clock::now(); },
        .wall_clock = commands::wall_clock_now,
        .sleep = [](std::chrono::milliseconds duration) { std::this_thread::sleep_for(duration); },
        .pending_signal = [] { return commands::pending_signal(); },
        .random_bytes = commands::random_id_bytes,
        .terminal = commands::stdio_is_terminal(),
        .backend = &backend,
    };
    CLI::App app{"sandbox-local: sandboxes on this machine (bubblewrap, a network namespace with "
                 "only loopback) behind their own egress proxy"};
    app.footer(kFooter);
    commands::register_backend_commands(app, context);
    commands::setup_policy_commands(app, context, backend);
    cli::add_bash_completion_flag(app, "sandbox-local", std::cout);
    return commands::run_backend_cli(app, context, argc, argv);
}
