// egress-proxy: wiring only. Flags and variables -> configuration -> server;
// the `ca`, `log` and `policy` subcommands are in cli/, the exit codes in
// cli/exit_codes.hpp.
#include "cli/bash_completion.hpp"
#include "cli/ca_command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/log_commands.hpp"
#include "cli/policy_command.hpp"
#include "cli/serve_flags.hpp"
#include "config/descriptor_budget.hpp"
#include "config/proxy_config.hpp"
#include "net/server.hpp"
#include "osf/process_env.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <optional>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace {

using osf::cli::exit_usage;

// Connections past what the descriptors allow would meet EMFILE before the 503.
void fit_connections_to_descriptors(osf::config::ProxyOptions& options, bool asked) {
    const auto descriptors = osf::config::raise_descriptor_limit();
    const auto allowed = osf::config::connections_within(descriptors);
    if (options.limits.max_connections <= allowed) return;
    // The default lowered is expected on a small limit; a value asked for is worth a warning.
    spdlog::log(asked ? spdlog::level::warn : spdlog::level::debug,
                "--max-connections {} is over what {} file descriptors allow: {} instead",
                options.limits.max_connections, descriptors, allowed);
    options.limits.max_connections = allowed;
}

int run(int argc, char** argv) {
    CLI::App app{"egress-proxy: the sandbox's only way out. TLS-intercepting forward proxy with a "
                 "host allowlist, secret substitution, MCP tool filtering and an egress log."};
    app.set_version_flag("--version", "egress-proxy " OSF_VERSION);
    const auto state_dir = osf::process_getenv("OSF_STATE_DIR");
    osf::cli::ServeFlags flags(app, state_dir ? &*state_dir : nullptr);
    osf::cli::CaCommand ca_command(app, flags.state_dir());
    osf::cli::LogCommands log_commands(app, flags.state_dir());
    osf::cli::PolicyCommand policy_command(app, flags.state_dir());
    osf::cli::add_bash_completion_flag(app, "egress-proxy", std::cout);

    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "egress-proxy: " << e.what() << " (see --help)\n";
        return exit_usage;
    }
    if (const auto code = ca_command.run()) return *code;
    if (const auto code = log_commands.run()) return *code;
    if (const auto code = policy_command.run()) return *code;

    spdlog::set_level(spdlog::level::from_str(flags.log_level()));
    auto options = flags.options();
    fit_connections_to_descriptors(options, app.count("--max-connections") > 0);
    auto loaded = osf::config::load_config(std::move(options), osf::process_getenv,
                                           osf::secrets::SourceEnvironment::from_process());
    if (auto* problem = std::get_if<std::string>(&loaded)) {
        std::cerr << "egress-proxy: " << *problem << "\n";
        return exit_usage;
    }
    const auto& config = std::get<osf::config::ProxyConfig>(loaded);
    std::optional<osf::net::ProxyServer> server;
    try {
        // Its documented failures (the state dir, the log file, a listen
        // address taken) are std::runtime_error with one line: nothing started.
        server.emplace(config);
    } catch (const std::runtime_error& e) {
        std::cerr << "egress-proxy: " << e.what() << "\n";
        return exit_usage;
    }
    return server->run();
}

} // namespace

int main(int argc, char** argv) {
    auto logger = spdlog::stderr_logger_mt("egress-proxy");
    spdlog::set_default_logger(logger);
    spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
    // Anything else thrown (after the listeners started, or not a
    // runtime_error) is a runtime failure: exit 1, not a usage error.
    return osf::cli::exit_code_of([&] { return run(argc, argv); }, std::cerr);
}
