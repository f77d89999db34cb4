#include "cli/serve_flags.hpp"

#include <chrono>
#include <cstdint>

namespace osf::cli {

ServeFlags::ServeFlags(CLI::App& app, const std::string* state_dir) {
    if (state_dir) options_.state_dir = *state_dir;
    add_serving(app);
    add_size_limits(app);
    add_http2(app);
    add_timeouts(app);
    add_egress_log(app);
}

void ServeFlags::add_serving(CLI::App& app) {
    app.add_option("--spec", options_.spec_path,
                   "Sandbox spec (contracts/sandbox-spec.schema.json)");
    app.add_option("--listen", options_.listen, "Proxy address")->capture_default_str();
    app.add_option("--admin-listen", options_.admin_listen,
                   "Admin address: /healthz /readyz /metrics")
        ->capture_default_str();
    app.add_option("--state-dir", options_.state_dir,
                   "Where ca.crt, egress.jsonl and listen.json go (OSF_STATE_DIR)")
        ->capture_default_str();
    app.add_option(
        "--upstream-ca", options_.upstream_ca,
        "Extra CA bundle trusted for upstreams, besides the system store (OSF_UPSTREAM_CA_BUNDLE)");
    app.add_flag("--log-stdout", options_.log_stdout, "Mirror the egress log to stdout");
    app.add_option("--threads", options_.threads,
                   "Worker threads (0: one per CPU this process may use, within its cgroup quota)")
        ->capture_default_str();
    app.add_option("--grace", grace_, "Seconds to finish requests in flight after SIGTERM")
        ->capture_default_str();
    app.add_option("--handoff-fd", options_.handoff_fd,
                   "A Unix SOCK_SEQPACKET socket this process was started with, on which "
                   "another process hands it listeners to accept on or connections to serve "
                   "(sandbox-local's agent)");
    app.add_option("--peer-listeners", options_.peer_listeners,
                   "Directory of files listing other proxies' ADDR:PORT listeners, never "
                   "connected to (sandbox-local's other sandboxes)");
}

void ServeFlags::add_size_limits(CLI::App& app) {
    app.add_option("--max-header-bytes", options_.limits.max_header_bytes,
                   "Largest request or response head")
        ->capture_default_str();
    app.add_option("--max-mcp-message-bytes", options_.limits.max_mcp_message_bytes,
                   "Largest MCP message or answer the proxy reads")
        ->capture_default_str();
    app.add_option("--max-connections", options_.limits.max_connections,
                   "Client connections open at once")
        ->capture_default_str();
}

void ServeFlags::add_http2(CLI::App& app) {
    app.add_option("--http2", http2_,
                   "HTTP/2 (ALPN h2) with clients inside intercepted tunnels: on or off")
        ->capture_default_str()
        ->check(CLI::IsMember({"on", "off"}));
    app.add_option("--upstream-http2", upstream_http2_,
                   "Offer origins h2: client (for requests that came as HTTP/2), always, or off")
        ->capture_default_str()
        ->check(CLI::IsMember({"client", "always", "off"}));
    app.add_option("--h2-max-streams", options_.limits.h2_max_streams,
                   "HTTP/2 streams a client connection may have open at once")
        ->capture_default_str()
        ->check(CLI::Range(std::uint32_t{1}, std::uint32_t{10000}));
}

void ServeFlags::add_timeouts(CLI::App& app) {
    app.add_option("--header-timeout", header_timeout_,
                   "Seconds for a new connection's first request head")
        ->capture_default_str();
    app.add_option("--idle-timeout", idle_timeout_,
                   "Seconds a keep-alive connection or a stalled transfer may idle")
        ->capture_default_str();
    app.add_option("--upstream-timeout", upstream_timeout_,
                   "Seconds to connect upstream and to get a response head")
        ->capture_default_str();
}

void ServeFlags::add_egress_log(CLI::App& app) {
    app.add_option("--checkpoint-lines", options_.checkpoint_lines,
                   "Sign the egress log (a checkpoint line) every this many lines")
        ->capture_default_str()
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
    app.add_option("--checkpoint-seconds", checkpoint_seconds_,
                   "Sign the egress log this often while lines are unsigned (0: only by lines)")
        ->capture_default_str();
    app.add_flag("--log-every-refusal", log_every_refusal_,
                 "One egress log line per refused request even under a flood (default: past 20 "
                 "of a kind or 120 in all a minute, refusals are counted in folded lines)");
    app.add_option("--log-level", log_level_, "Diagnostics on stderr: debug, info, warn, error")
        ->capture_default_str()
        ->check(CLI::IsMember({"debug", "info", "warn", "error"}));
}

config::ProxyOptions ServeFlags::options() const {
    config::ProxyOptions options = options_;
    options.grace = std::chrono::seconds(grace_);
    options.http2 = http2_ == "on";
    using UpstreamHttp2 = config::ProxyOptions::UpstreamHttp2;
    options.upstream_http2 = upstream_http2_ == "always" ? UpstreamHttp2::always
                             : upstream_http2_ == "off"  ? UpstreamHttp2::off
                                                         : UpstreamHttp2::client;
    options.limits.header_timeout = std::chrono::seconds(header_timeout_);
    options.limits.idle_timeout = std::chrono::seconds(idle_timeout_);
    options.limits.upstream_timeout = std::chrono::seconds(upstream_timeout_);
    options.checkpoint_interval = std::chrono::seconds(checkpoint_seconds_);
    options.fold_refusals = !log_every_refusal_;
    return options;
}

} // namespace osf::cli
