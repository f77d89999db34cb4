// The proxy's own answers: a refusal (logged, then answered), a failure
// upstream (502/504, or a cut connection once the client has a head), and any
// short message held whole in memory.
#pragma once

#include "net/body_relay.hpp"
#include "net/exchange.hpp"
#include "net/http_framing.hpp"
#include "net/http_messages.hpp"
#include "osf/log_fields.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http.hpp>
#include <optional>
#include <spdlog/spdlog.h>
#include <string>
#include <string_view>

namespace osf::net {

// Writes a message held whole in memory: its head and `body` (see MessageFramer).
template <class Stream, bool isRequest, class Body>
boost::asio::awaitable<std::tuple<boost::beast::error_code, std::size_t>>
write_whole(Stream& stream, const boost::beast::http::message<isRequest, Body>& message,
            std::string_view body, bool bodiless = false) {
    MessageFramer framer(message, bodiless);
    co_return co_await boost::asio::async_write(stream, framer.next(body, true), use_tuple);
}

// Writes a short answer of the proxy's own (refusal, bad gateway, MCP reply).
template <class Client>
boost::asio::awaitable<bool> answer(Client& client, Exchange& ex, boost::beast::http::status status,
                                    std::string_view content_type, std::string body,
                                    std::optional<RefusalReason> refused_by = {}) {
    namespace http = boost::beast::http;
    http::response<http::string_body> res{status, ex.client_version};
    res.set(http::field::server, "egress-proxy");
    res.set(http::field::content_type, content_type);
    if (refused_by) res.set(refused_by_header, to_string(*refused_by));
    res.set(http::field::cache_control, "no-store");
    res.body() = std::move(body);
    res.keep_alive(ex.client_keep);
    res.prepare_payload();
    expire_in(client, ex.ctx.config.limits().idle_timeout);
    auto [ec, n] = co_await write_whole(client, res, res.body());
    ex.responded = true;
    co_return !ec && ex.client_keep;
}

// Logs the refusal first, then answers it: a refusal is on record before the sandbox sees it.
template <class Client>
boost::asio::awaitable<bool> refuse(Client& client, Exchange& ex, boost::beast::http::status status,
                                    RefusalReason reason, const std::string& detail) {
    ex.rec.refused_by = reason;
    ex.finish(Outcome::refused, static_cast<int>(status));
    co_return co_await answer(client, ex, status, "text/plain; charset=utf-8",
                              refusal_body(ex.rec.host, detail), reason);
}

// The exchange failed upstream: a 502 (504 for a timeout) while the client
// has no answer yet, otherwise the connection is cut. Returns false: the
// client connection does not go on.
template <class Client>
boost::asio::awaitable<bool> fail(Client& client, Exchange& ex, ErrorKind error,
                                  const std::string& detail) {
    namespace http = boost::beast::http;
    ex.rec.error = error;
    const auto status = error == ErrorKind::upstream_timeout ? http::status::gateway_timeout
                                                             : http::status::bad_gateway;
    spdlog::warn("connection {}: {} {}:{}: {}", ex.rec.connection, to_string(error), ex.rec.host,
                 ex.rec.port, detail);
    if (ex.responded) { // too late for an answer: cut the connection
        ex.finish(Outcome::error, ex.rec.status);
        co_return false;
    }
    ex.client_keep = false;
    ex.finish(Outcome::error, static_cast<int>(status));
    co_await answer(client, ex, status, "text/plain; charset=utf-8",
                    "egress-proxy: " + std::string(to_string(error)) + ": " + detail + "\n");
    co_return false;
}

} // namespace osf::net
