// Upstream connections: resolved and checked against the policy, connected
// to the address that was checked, TLS-verified, and pooled per worker thread.
#pragma once

#include "net/proxy_runtime.hpp"
#include "net/tls_stream.hpp"
#include "policy/policy.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace osf::net {

struct UpstreamConnection {
    std::string key;
    bool tls = false;
    std::unique_ptr<boost::beast::tcp_stream> tcp; // plain
    std::unique_ptr<TlsStream> secure;             // TLS
    boost::beast::flat_buffer buffer;              // bytes read past the last response
    std::chrono::steady_clock::time_point idle_since;
    bool reused = false;

    boost::asio::ip::tcp::socket& socket();
    // Bytes the server sent after its last answer, already read: the framing is off.
    bool holds_unread();
    // False when the server has closed the idle connection (or sent bytes it should
    // not have): holds_unread, then a look at the socket (one system call).
    bool still_open();
};

std::string upstream_key(std::string_view host, std::uint16_t port, bool tls);

// Idle upstream connections of one worker thread (no locking: one thread uses it).
class UpstreamPool {
public:
    // The most recently used idle connection to `key` that is still open. With
    // `can_retry` (the request can be sent again on a fresh connection if this one
    // turns out closed before any answer) a connection used within the last
    // second is taken without looking at its socket: servers close idle
    // connections after seconds, not milliseconds, and the retry covers the rest.
    std::unique_ptr<UpstreamConnection> take(const std::string& key, bool can_retry = false);
    void put(std::unique_ptr<UpstreamConnection> connection);
    std::size_t size() const;

    static constexpr std::size_t max_idle_per_key =
        128; // 64 busy clients on one worker must not churn
    static constexpr std::chrono::seconds max_idle_age{
        50}; // under common server keep-alive limits (60 s)
    static constexpr std::chrono::seconds recently_used{1};

private:
    std::unordered_map<std::string, std::deque<std::unique_ptr<UpstreamConnection>>> idle_;
};

// The outcome of resolving a host: the addresses the policy allows, or why not.
struct ResolvedDestination {
    std::vector<boost::asio::ip::tcp::endpoint> endpoints;
    policy::Decision refusal;       // set (refused) when every address was refused
    std::optional<ErrorKind> error; // dns when the name did not resolve
};

boost::asio::awaitable<ResolvedDestination> resolve_checked(ProxyRuntime& ctx, std::string host,
                                                            std::uint16_t port);

struct UpstreamResult {
    std::unique_ptr<UpstreamConnection> connection;
    policy::Decision refusal;       // destination-address refusals
    std::optional<ErrorKind> error; // dns, upstream_connect, upstream_tls, upstream_timeout
    std::string detail;             // for diagnostics and the 502 body (no secrets)
};

// Takes a pooled connection or makes a new one. `checked` are addresses
// already resolved and checked (a CONNECT tunnel's); otherwise it resolves.
boost::asio::awaitable<UpstreamResult>
acquire_upstream(ProxyRuntime& ctx, UpstreamPool& pool, const std::string& host, std::uint16_t port,
                 bool tls, const std::vector<boost::asio::ip::tcp::endpoint>* checked,
                 bool allow_pooled = true, bool can_retry = false);

} // namespace osf::net
