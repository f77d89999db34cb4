#include "net/raw_tunnel.hpp"

#include "net/body_relay.hpp"
#include "net/relay_buffer.hpp"
#include "net/upstream.hpp"

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/tcp_stream.hpp>

namespace osf::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
using asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

// What both directions of one tunnel share.
struct RelayState {
    tcp::socket& client;
    tcp::socket& upstream;
    Clock::time_point last_activity = Clock::now();
    std::optional<ErrorKind> cut_by; // the first failure, which ended both directions

    // Ends both directions at once: a failure on one side leaves nothing to relay.
    void cut(ErrorKind why) {
        if (!cut_by) cut_by = why;
        boost::system::error_code ignored;
        client.shutdown(tcp::socket::shutdown_both, ignored);
        upstream.shutdown(tcp::socket::shutdown_both, ignored);
        client.cancel(ignored);
        upstream.cancel(ignored);
    }
};

// One direction. An orderly end of stream is passed on as a half close (the
// other direction goes on: a client may send EOF and still read the answer).
asio::awaitable<void> relay_one_way(tcp::socket& from, tcp::socket& to, std::uint64_t& bytes,
                                    RelayState& state, ErrorKind read_failure) {
    RelayBuffer chunk;
    for (;;) {
        auto [ec, n] =
            co_await from.async_read_some(asio::buffer(chunk.data(), RelayBuffer::size), use_tuple);
        if (ec == asio::error::eof) {
            boost::system::error_code ignored;
            to.shutdown(tcp::socket::shutdown_send, ignored);
            co_return;
        }
        if (ec) {
            state.cut(read_failure);
            co_return;
        }
        state.last_activity = Clock::now();
        auto [wec, wn] = co_await asio::async_write(to, asio::buffer(chunk.data(), n), use_tuple);
        if (wec) {
            state.cut(read_failure == ErrorKind::client_closed ? ErrorKind::upstream_reset
                                                               : ErrorKind::client_closed);
            co_return;
        }
        bytes += n;
        state.last_activity = Clock::now();
    }
}

// Returns when the tunnel has carried nothing either way for `idle`.
asio::awaitable<void> watch_idle(RelayState& state, std::chrono::seconds idle) {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    for (;;) {
        timer.expires_at(state.last_activity + idle);
        auto [ec] = co_await timer.async_wait(use_tuple);
        if (ec) co_return; // the relay ended first
        if (Clock::now() >= state.last_activity + idle) {
            state.cut(ErrorKind::idle_timeout);
            co_return;
        }
    }
}

struct TunnelGauge {
    std::atomic<std::int64_t>& gauge;
    explicit TunnelGauge(std::atomic<std::int64_t>& g) : gauge(g) { gauge.fetch_add(1); }
    ~TunnelGauge() { gauge.fetch_sub(1); }
};

} // namespace

asio::awaitable<ReachedTunnel> reach_tunnel(ProxyRuntime& ctx, std::string host, std::uint16_t port,
                                            bool raw) {
    ReachedTunnel out;
    out.target.host = std::move(host);
    out.target.port = port;
    auto resolved = co_await resolve_checked(ctx, out.target.host, port,
                                             Clock::now() + ctx.config.limits().upstream_timeout);
    if (resolved.error) {
        out.error = resolved.error;
        out.detail = std::move(resolved.detail);
        co_return out;
    }
    if (!resolved.refusal.allowed) {
        out.refused_by = resolved.refusal.refused_by;
        out.detail = std::move(resolved.refusal.detail);
        co_return out;
    }
    out.target.endpoints = std::move(resolved.endpoints);
    if (!raw) co_return out;
    beast::tcp_stream stream(co_await asio::this_coro::executor);
    stream.expires_after(ctx.config.limits().upstream_timeout);
    auto [ec, connected] =
        co_await stream.async_connect(out.target.endpoints, asio::as_tuple(asio::use_awaitable));
    if (ec) {
        out.error =
            ec == beast::error::timeout ? ErrorKind::upstream_timeout : ErrorKind::upstream_connect;
        out.detail = "cannot connect to " + out.target.host + ":" + std::to_string(port) + ": " +
                     ec.message();
        co_return out;
    }
    boost::system::error_code ignored;
    stream.socket().set_option(tcp::no_delay(true), ignored);
    ctx.metrics.upstream_connects.fetch_add(1, std::memory_order_relaxed);
    out.raw.emplace(stream.release_socket());
    co_return out;
}

asio::awaitable<void> relay_raw(ProxyRuntime& ctx, ClientRegistration& registration,
                                tcp::socket& client, tcp::socket& upstream,
                                beast::flat_buffer& early, Exchange& ex, int status) {
    using namespace asio::experimental::awaitable_operators;
    const TunnelGauge tunnels(ctx.metrics.open_tunnels);
    ex.rec.reached_upstream = true;
    RelayState state{client, upstream, Clock::now(), std::nullopt};
    if (early.size() > 0) {
        auto [ec, n] = co_await asio::async_write(upstream, early.data(), use_tuple);
        if (ec) state.cut(ErrorKind::upstream_reset);
        ex.rec.bytes_up += n;
        early.consume(early.size());
    }
    early.shrink_to_fit(); // the relay's own buffers carry the bytes from here
    if (!state.cut_by)
        co_await (
            (relay_one_way(client, upstream, ex.rec.bytes_up, state, ErrorKind::client_closed) &&
             relay_one_way(upstream, client, ex.rec.bytes_down, state,
                           ErrorKind::upstream_reset)) ||
            watch_idle(state, ctx.config.limits().idle_timeout));
    if (registration.revoked()) {
        ex.finish_error(ErrorKind::policy_revoked, status);
    } else if (state.cut_by) {
        ex.finish_error(*state.cut_by, status);
    } else {
        ex.finish(Outcome::allowed, status);
    }
}

} // namespace osf::net
