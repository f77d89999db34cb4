#include "net/socks5_session.hpp"

#include "admission/socks5_messages.hpp"
#include "admission/tunnel_admission.hpp"
#include "net/body_relay.hpp"
#include "net/exchange.hpp"
#include "net/http_proxy_session.hpp"
#include "net/raw_tunnel.hpp"
#include "net/upstream.hpp"

#include <boost/asio/write.hpp>
#include <span>
#include <spdlog/spdlog.h>

namespace osf::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace socks5 = admission::socks5;

namespace {

std::span<const std::uint8_t> socks_bytes(const beast::flat_buffer& buffer) {
    return {static_cast<const std::uint8_t*>(buffer.cdata().data()), buffer.size()};
}

// Reads until `read(bytes)` is no longer incomplete; the buffer never holds
// more than `most` bytes beyond what was read already. False: the client left
// or sent nothing more within the header timeout.
template <class Read>
asio::awaitable<bool> read_message(ClientSession<beast::tcp_stream>& s, Read read,
                                   std::size_t most) {
    for (;;) {
        const auto message = read(socks_bytes(s.buffer));
        if (message.state != socks5::State::incomplete) co_return true;
        s.stream.expires_after(s.ctx.config.limits().header_timeout);
        const std::size_t want = std::max<std::size_t>(message.size, most) - s.buffer.size();
        auto [ec, n] = co_await s.stream.async_read_some(s.buffer.prepare(want), use_tuple);
        if (ec || n == 0) co_return false;
        s.buffer.commit(n);
    }
}

template <std::size_t N>
asio::awaitable<bool> send_reply(beast::tcp_stream& stream,
                                 const std::array<std::uint8_t, N>& bytes) {
    auto [ec, n] = co_await asio::async_write(stream, asio::buffer(bytes), use_tuple);
    co_return !ec;
}

// The refusal's line first, then the reply: on record before the sandbox sees it.
asio::awaitable<void> refuse_socks(ClientSession<beast::tcp_stream>& s, Exchange& ex,
                                   socks5::Reply reply, RefusalReason reason,
                                   const std::string& detail) {
    spdlog::debug("connection {}: SOCKS5 refused: {}", ex.rec.connection, detail);
    ex.rec.refused_by = reason;
    ex.finish(Outcome::refused, 0);
    co_await send_reply(s.stream, socks5::reply(reply));
}

asio::awaitable<void> fail_socks(ClientSession<beast::tcp_stream>& s, Exchange& ex, ErrorKind error,
                                 const std::string& detail) {
    spdlog::warn("connection {}: {} {}:{}: {}", ex.rec.connection, to_string(error), ex.rec.host,
                 ex.rec.port, detail);
    ex.finish_error(error, 0);
    const auto reply = error == ErrorKind::dns                ? socks5::Reply::host_unreachable
                       : error == ErrorKind::upstream_timeout ? socks5::Reply::ttl_expired
                       : error == ErrorKind::upstream_connect ? socks5::Reply::connection_refused
                                                              : socks5::Reply::general_failure;
    co_await send_reply(s.stream, socks5::reply(reply));
}

const char* command_name(std::uint8_t command) {
    switch (command) {
    case static_cast<std::uint8_t>(socks5::Command::connect):
        return "CONNECT";
    case static_cast<std::uint8_t>(socks5::Command::bind):
        return "BIND";
    case static_cast<std::uint8_t>(socks5::Command::udp_associate):
        return "UDP-ASSOCIATE";
    }
    return "";
}

} // namespace

asio::awaitable<void> serve_socks5(ClientSession<beast::tcp_stream>& s) {
    auto& ctx = s.ctx;
    Exchange ex(ctx, s.conn, "");
    ex.rec.scheme = "tcp";
    s.registration.set_idle(false);

    if (!co_await read_message(s, socks5::read_greeting, socks5::max_greeting_bytes)) {
        ex.finish_error(ErrorKind::client_closed, 0);
        co_return;
    }
    const auto greeting = socks5::read_greeting(socks_bytes(s.buffer));
    if (greeting.state == socks5::State::malformed) {
        co_await refuse_socks(s, ex, socks5::Reply::general_failure, RefusalReason::bad_request,
                              greeting.problem);
        co_return;
    }
    s.buffer.consume(greeting.size);
    if (!co_await send_reply(s.stream, socks5::method_choice(greeting.offers_no_authentication))) {
        ex.finish_error(ErrorKind::client_closed, 0);
        co_return;
    }
    if (!greeting.offers_no_authentication) {
        // The method reply (0xFF) already told the client; the line says why.
        ex.rec.refused_by = RefusalReason::bad_request;
        ex.finish(Outcome::refused, 0);
        co_return;
    }

    if (!co_await read_message(s, socks5::read_request, socks5::max_request_bytes)) {
        ex.finish_error(ErrorKind::client_closed, 0);
        co_return;
    }
    const auto request = socks5::read_request(socks_bytes(s.buffer));
    if (request.state == socks5::State::malformed) {
        co_await refuse_socks(s, ex, request.reply, RefusalReason::bad_request, request.problem);
        co_return;
    }
    s.buffer.consume(request.size);
    ex.rec.method = command_name(request.command);
    ex.rec.host = request.host;
    ex.rec.port = request.port;
    if (request.command != static_cast<std::uint8_t>(socks5::Command::connect)) {
        co_await refuse_socks(s, ex, socks5::Reply::command_not_supported,
                              RefusalReason::socks_command_not_supported,
                              "only the SOCKS5 CONNECT command is served");
        co_return;
    }

    const auto rules = ctx.rules();
    auto admitted = admission::admit_socks_connect(rules->policy, request.host, request.port);
    ex.rec.policy = rules->generation;
    ex.rec.host = admitted.logged.host;
    ex.rec.port = admitted.logged.port;
    ex.rec.scheme = admitted.logged.scheme;
    if (admitted.refusal) {
        co_await refuse_socks(s, ex, socks5::Reply::not_allowed, *admitted.refusal,
                              admitted.detail);
        co_return;
    }
    // The name is resolved here, never by the sandbox; its addresses are checked as any.
    auto reached = co_await reach_tunnel(ctx, admitted.host, admitted.port, admitted.raw);
    if (reached.error) {
        co_await fail_socks(s, ex, *reached.error, reached.detail);
        co_return;
    }
    if (reached.refused_by) {
        co_await refuse_socks(s, ex, socks5::Reply::not_allowed, *reached.refused_by,
                              reached.detail);
        co_return;
    }
    auto& target = reached.target;
    if (!co_await send_reply(s.stream, socks5::reply(socks5::Reply::succeeded))) {
        ex.finish_error(ErrorKind::client_closed, 0);
        co_return;
    }
    ex.responded = true;
    if (admitted.raw) {
        s.stream.expires_never(); // the relay keeps its own idle time
        s.registration.set_destination(target.host, target.port, true);
        co_await relay_raw(ctx, s.registration, s.stream.socket(), *reached.raw, s.buffer, ex, 0);
        co_return;
    }
    co_await serve_intercepted_tunnel(s, ex, target);
}

} // namespace osf::net
