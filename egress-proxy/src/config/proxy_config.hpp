// The proxy's validated configuration: flags and variables, the spec, the
// egress policy and MCP server policies built from it, the resolved secrets
// and the upstream TLS settings. Built once at start by load_config (any
// problem is one line for the caller to print before exiting 2), then shared
// read-only by every connection. What changes while the proxy runs (counters,
// the log, the leaf cache, MCP sessions, draining) is net::ProxyRuntime's.
#pragma once

#include "config/egress_rules.hpp"
#include "config/limits.hpp"
#include "mcp/mcp_filter.hpp"
#include "osf/spec.hpp"
#include "policy/policy.hpp"
#include "secrets/live_secrets.hpp"
#include "secrets/secret_store.hpp"
#include "secrets/sigv4_resigning.hpp"

#include <boost/asio/ssl/context.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace osf::config {

struct ProxyOptions {
    std::string spec_path;
    std::string listen = "0.0.0.0:8080";
    std::string admin_listen = "127.0.0.1:9090";
    std::string state_dir = "/var/lib/egress-proxy";
    std::string upstream_ca;    // extra trust bundle for upstreams (OSF_UPSTREAM_CA_BUNDLE)
    std::string peer_listeners; // a directory of other proxies' listeners, never a destination
    // --handoff-fd: a Unix SOCK_SEQPACKET socket on which another process hands
    // over connections it accepted (admin/connection_handoff.hpp); -1: none.
    int handoff_fd = -1;
    bool log_stdout = false;
    unsigned threads = 1; // 0: one per CPU the process may use (usable_cpus)
    std::chrono::seconds grace{10};
    // The egress log's signed checkpoints: every so many lines, and every so
    // many seconds while lines are unsigned (0: only by lines).
    std::uint64_t checkpoint_lines = 1000;
    std::chrono::seconds checkpoint_interval{60};
    // Under a flood of refusals, fold repeated ones into counted lines
    // (log/refusal_folding.hpp); false: one line per request, whatever the rate.
    bool fold_refusals = true;
    bool http2 = true; // ALPN h2 offered to clients inside intercepted tunnels
    // When an origin is offered h2 (it may still choose http/1.1): for requests
    // that came as HTTP/2, for every request, or never.
    enum class UpstreamHttp2 { client, always, off };
    UpstreamHttp2 upstream_http2 = UpstreamHttp2::client;
    Limits limits;
};

struct ProxyConfig {
    ProxyOptions options; // upstream_ca includes OSF_UPSTREAM_CA_BUNDLE
    // The rules the proxy starts with (the spec's egress and MCP hosts, with
    // OSF_SANDBOX_HOST_ALIASES); a policy change replaces them in ProxyRuntime.
    std::shared_ptr<const EgressRules> rules;
    // The resolved secrets, re-read when a file secret's file changes (null: none).
    std::shared_ptr<secrets::LiveSecrets> secrets;
    // Upstream TLS: TLS 1.2+, the system store plus options.upstream_ca. Shared
    // by every upstream connection (OpenSSL allows SSL_new on one SSL_CTX from
    // any thread); hostname and SNI are set per connection (net/upstream.cpp).
    std::shared_ptr<boost::asio::ssl::context> upstream_tls;
    // The AWS secrets: requests signed with their placeholders are signed again.
    std::vector<secrets::sigv4::AwsKeys> aws;

    const Limits& limits() const { return options.limits; }
};

using Getenv = std::function<std::optional<std::string>(const std::string&)>;

// Checks the options (the one place they are validated beyond their syntax),
// reads the spec file, OSF_SANDBOX_HOST_ALIASES, OSF_UPSTREAM_CA_BUNDLE (when
// --upstream-ca is not given) and the secrets, and builds the policies from them. Returns the
// configuration, or one line naming the problem (never a secret value).
std::variant<ProxyConfig, std::string> load_config(ProxyOptions options, const Getenv& getenv,
                                                   const secrets::SourceEnvironment& sources);

// "0.0.0.0:8080", "127.0.0.1:0", "[::]:8080" -> address and port;
// "unix:/abs/path" -> a Unix socket (made mode 0600: reachable only by the
// proxy's user, through directories that let it); "fd:N" -> a listening Unix
// socket the proxy was started with as descriptor N (3 or more), bound by
// whoever started it (sandbox-local's supervisor: the socket its sandbox
// reaches, so its connections come straight to the proxy); or an error text.
struct ListenAddress {
    std::string address;
    std::uint16_t port = 0;
    std::string unix_path; // set for unix:PATH (address and port then unused)
    int inherited_fd = -1; // set for fd:N
};
inline constexpr std::string_view unix_listen_prefix = "unix:";
inline constexpr std::string_view fd_listen_prefix = "fd:";
inline constexpr std::size_t max_unix_path_bytes = 107; // sockaddr_un's sun_path, less its NUL
std::variant<ListenAddress, std::string> parse_listen(std::string_view text);

} // namespace osf::config
