// Upstream connections: resolved and checked against the policy, connected
// to the address that was checked, TLS-verified, and pooled per worker thread.
#pragma once

#include "net/h2_upstream.hpp"
#include "net/proxy_runtime.hpp"
#include "net/tls_stream.hpp"
#include "policy/policy.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <variant>
#include <vector>

namespace osf::net {

struct UpstreamConnection {
    std::string key;
    // Plain, TLS, or a stream on a shared HTTP/2 connection (monostate only
    // while it is being made).
    std::variant<std::monostate, boost::beast::tcp_stream, TlsStream, H2UpstreamStream> stream;
    boost::beast::flat_buffer buffer; // bytes read past the last response
    std::chrono::steady_clock::time_point idle_since;
    bool reused = false;

    boost::asio::ip::tcp::socket& socket();
    bool tls() const { return std::holds_alternative<TlsStream>(stream); }
    // Calls `f` with the stream, whichever kind it is (a connection being made
    // has none yet: std::bad_variant_access).
    template <class F> decltype(auto) visit(F&& f) {
        if (auto* secure = std::get_if<TlsStream>(&stream)) return f(*secure);
        if (auto* h2 = std::get_if<H2UpstreamStream>(&stream)) return f(*h2);
        return f(std::get<boost::beast::tcp_stream>(stream));
    }
    bool h2() const { return std::holds_alternative<H2UpstreamStream>(stream); }
    // Bytes the server sent after its last answer, already read: the framing is off.
    bool holds_unread();
    // False when the server has closed the idle connection (or sent bytes it should
    // not have): holds_unread, then a look at the socket (one system call).
    bool still_open();
};

// The pool's key: an origin and how it was offered ALPN. A connection made when
// only http/1.1 was offered is never what a request offering h2 takes (nor the
// reverse): which protocol a request gets must not depend on which came first.
std::string upstream_key(std::string_view host, std::uint16_t port, bool tls, bool offered_h2);

// Idle upstream connections of one worker thread (no locking: one thread uses it).
class UpstreamPool {
public:
    // The most recently used idle connection to `key` that is still open and
    // quiet: its socket is looked at every time (one non-blocking peek), since an
    // upstream's unsolicited bytes after an answer, however soon, would otherwise
    // be read as the answer to the next request.
    std::unique_ptr<UpstreamConnection> take(const std::string& key);
    // Idle connections only: a stream on an HTTP/2 connection is let go (the
    // connection itself stays in the pool while it lives).
    void put(std::unique_ptr<UpstreamConnection> connection);
    std::size_t size() const;

    // HTTP/2 connections to an origin, shared by the requests on them: one
    // that takes another request now, if any.
    std::shared_ptr<H2UpstreamConnection> take_h2(const std::string& key);
    void add_h2(std::shared_ptr<H2UpstreamConnection> connection);
    void forget_h2(const H2UpstreamConnection* connection);

    // A connection to an origin offered h2 being made: requests to the same
    // origin that arrive meanwhile (an HTTP/2 client's burst of streams) wait
    // for it and share it if the origin chose h2, instead of each opening a
    // connection of its own. The timer is cancelled when the dial ends and
    // expires at its deadline; nullptr when no dial is under way.
    std::shared_ptr<boost::asio::steady_timer> h2_dial_under_way(const std::string& key) const;
    void start_h2_dial(const std::string& key, std::shared_ptr<boost::asio::steady_timer> done);
    void end_h2_dial(const std::string& key);

    static constexpr std::size_t max_idle_per_key =
        128; // 64 busy clients on one worker must not churn
    static constexpr std::chrono::seconds max_idle_age{
        50}; // under common server keep-alive limits (60 s)

private:
    std::unordered_map<std::string, std::deque<std::unique_ptr<UpstreamConnection>>> idle_;
    std::unordered_map<std::string, std::vector<std::shared_ptr<H2UpstreamConnection>>> h2_;
    std::unordered_map<std::string, std::shared_ptr<boost::asio::steady_timer>> dialing_h2_;
};

// The outcome of resolving a host: the addresses the policy allows, or why not.
struct ResolvedDestination {
    std::vector<boost::asio::ip::tcp::endpoint> endpoints;
    policy::Decision refusal; // set (refused) when every address was refused
    std::optional<ErrorKind>
        error;          // dns when the name did not resolve, upstream_timeout not in time
    std::string detail; // with an error: for diagnostics and the 502/504 body
};

// The time by which an upstream connection must be up: DNS, TCP connect and the
// TLS handshake share it (--upstream-timeout).
using Deadline = std::chrono::steady_clock::time_point;

// Resolves `host` and keeps the addresses the policy allows. A lookup still
// running at `deadline` is abandoned: error upstream_timeout.
boost::asio::awaitable<ResolvedDestination> resolve_checked(ProxyRuntime& ctx, std::string host,
                                                            std::uint16_t port, Deadline deadline);

struct UpstreamResult {
    std::unique_ptr<UpstreamConnection> connection;
    policy::Decision refusal;       // destination-address refusals
    std::optional<ErrorKind> error; // dns, upstream_connect, upstream_tls, upstream_timeout
    std::string detail;             // for diagnostics and the 502 body (no secrets)
};

// Takes a pooled connection or makes a new one. `checked` are addresses
// already resolved and checked (a CONNECT tunnel's); otherwise it resolves.
// `offer_h2`: a TLS origin is offered h2 too, and a stream on an HTTP/2
// connection to it is what comes back when it takes it.
boost::asio::awaitable<UpstreamResult>
acquire_upstream(ProxyRuntime& ctx, UpstreamPool& pool, const std::string& host, std::uint16_t port,
                 bool tls, const std::vector<boost::asio::ip::tcp::endpoint>* checked,
                 bool allow_pooled = true, bool offer_h2 = false);

} // namespace osf::net
