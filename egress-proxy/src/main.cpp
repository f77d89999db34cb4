// egress-proxy: wiring only. Flags and variables -> configuration -> server;
// the `ca`, `log` and `policy` subcommands are in cli/, the exit codes in
// cli/exit_codes.hpp.
#include "cli/bash_completion.hpp"
#include "cli/ca_command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/log_commands.hpp"
#include "cli/policy_command.hpp"
#include "config/descriptor_budget.hpp"
#include "config/proxy_config.hpp"
#include "net/server.hpp"
#include "osf/process_env.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>
#include <optional>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace {

using osf::cli::exit_usage;

int run(int argc, char** argv) {
    CLI::App app{"egress-proxy: the sandbox's only way out. TLS-intercepting forward proxy with a "
                 "host allowlist, secret substitution, MCP tool filtering and an egress log."};
    app.set_version_flag("--version", "egress-proxy " OSF_VERSION);
    osf::config::ProxyOptions options;
    if (auto dir = osf::process_getenv("OSF_STATE_DIR")) options.state_dir = *dir;
    long long grace = options.grace.count();
    long long header_timeout = options.limits.header_timeout.count();
    long long idle_timeout = options.limits.idle_timeout.count();
    long long upstream_timeout = options.limits.upstream_timeout.count();
    long long checkpoint_seconds = options.checkpoint_interval.count();
    std::string log_level = "info";

    app.add_option("--spec", options.spec_path,
                   "Sandbox spec (contracts/sandbox-spec.schema.json)");
    app.add_option("--listen", options.listen, "Proxy address")->capture_default_str();
    app.add_option("--admin-listen", options.admin_listen,
                   "Admin address: /healthz /readyz /metrics")
        ->capture_default_str();
    app.add_option("--state-dir", options.state_dir,
                   "Where ca.crt, egress.jsonl and listen.json go (OSF_STATE_DIR)")
        ->capture_default_str();
    app.add_option(
        "--upstream-ca", options.upstream_ca,
        "Extra CA bundle trusted for upstreams, besides the system store (OSF_UPSTREAM_CA_BUNDLE)");
    app.add_flag("--log-stdout", options.log_stdout, "Mirror the egress log to stdout");
    app.add_option("--threads", options.threads,
                   "Worker threads (0: one per CPU this process may use, within its cgroup quota)")
        ->capture_default_str();
    app.add_option("--grace", grace, "Seconds to finish requests in flight after SIGTERM")
        ->capture_default_str();
    app.add_option("--peer-listeners", options.peer_listeners,
                   "Directory of files listing other proxies' ADDR:PORT listeners, never "
                   "connected to (sandbox-local's other sandboxes)");
    app.add_option("--max-header-bytes", options.limits.max_header_bytes,
                   "Largest request or response head")
        ->capture_default_str();
    app.add_option("--max-mcp-message-bytes", options.limits.max_mcp_message_bytes,
                   "Largest MCP message or answer the proxy reads")
        ->capture_default_str();
    app.add_option("--max-connections", options.limits.max_connections,
                   "Client connections open at once")
        ->capture_default_str();
    std::string http2 = "on";
    app.add_option("--http2", http2,
                   "HTTP/2 (ALPN h2) with clients inside intercepted tunnels: on or off")
        ->capture_default_str()
        ->check(CLI::IsMember({"on", "off"}));
    std::string upstream_http2 = "client";
    app.add_option("--upstream-http2", upstream_http2,
                   "Offer origins h2: client (for requests that came as HTTP/2), always, or off")
        ->capture_default_str()
        ->check(CLI::IsMember({"client", "always", "off"}));
    app.add_option("--h2-max-streams", options.limits.h2_max_streams,
                   "HTTP/2 streams a client connection may have open at once")
        ->capture_default_str()
        ->check(CLI::Range(std::uint32_t{1}, std::uint32_t{10000}));
    app.add_option("--header-timeout", header_timeout,
                   "Seconds for a new connection's first request head")
        ->capture_default_str();
    app.add_option("--idle-timeout", idle_timeout,
                   "Seconds a keep-alive connection or a stalled transfer may idle")
        ->capture_default_str();
    app.add_option("--upstream-timeout", upstream_timeout,
                   "Seconds to connect upstream and to get a response head")
        ->capture_default_str();
    app.add_option("--checkpoint-lines", options.checkpoint_lines,
                   "Sign the egress log (a checkpoint line) every this many lines")
        ->capture_default_str()
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
    app.add_option("--checkpoint-seconds", checkpoint_seconds,
                   "Sign the egress log this often while lines are unsigned (0: only by lines)")
        ->capture_default_str();
    bool log_every_refusal = false;
    app.add_flag("--log-every-refusal", log_every_refusal,
                 "One egress log line per refused request even under a flood (default: past 20 "
                 "of a kind or 120 in all a minute, refusals are counted in folded lines)");
    app.add_option("--log-level", log_level, "Diagnostics on stderr: debug, info, warn, error")
        ->capture_default_str()
        ->check(CLI::IsMember({"debug", "info", "warn", "error"}));

    osf::cli::CaCommand ca_command(app, options.state_dir);
    osf::cli::LogCommands log_commands(app, options.state_dir);
    osf::cli::PolicyCommand policy_command(app, options.state_dir);
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

    spdlog::set_level(spdlog::level::from_str(log_level));
    options.grace = std::chrono::seconds(grace);
    options.http2 = http2 == "on";
    using UpstreamHttp2 = osf::config::ProxyOptions::UpstreamHttp2;
    options.upstream_http2 = upstream_http2 == "always" ? UpstreamHttp2::always
                             : upstream_http2 == "off"  ? UpstreamHttp2::off
                                                        : UpstreamHttp2::client;
    options.limits.header_timeout = std::chrono::seconds(header_timeout);
    options.limits.idle_timeout = std::chrono::seconds(idle_timeout);
    options.limits.upstream_timeout = std::chrono::seconds(upstream_timeout);
    options.checkpoint_interval = std::chrono::seconds(checkpoint_seconds);
    options.fold_refusals = !log_every_refusal;
    // Connections past what the descriptors allow would meet EMFILE before the 503.
    const auto descriptors = osf::config::raise_descriptor_limit();
    if (const auto allowed = osf::config::connections_within(descriptors);
        options.limits.max_connections > allowed) {
        // The default lowered is expected on a small limit; a value asked for is worth a warning.
        const bool asked = app.count("--max-connections") > 0;
        spdlog::log(asked ? spdlog::level::warn : spdlog::level::debug,
                    "--max-connections {} is over what {} file descriptors allow: {} instead",
                    options.limits.max_connections, descriptors, allowed);
        options.limits.max_connections = allowed;
    }
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
