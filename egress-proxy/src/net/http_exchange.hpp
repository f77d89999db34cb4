// One HTTP exchange through the proxy: decide, substitute, filter, forward,
// relay the answer, log. Templates over the client stream (plain TCP, or the
// TLS stream of an intercepted tunnel) and the upstream stream.
#pragma once

#include "log/log_record.hpp"
#include "mcp/legacy_transport.hpp"
#include "mcp/mcp_filter.hpp"
#include "mcp/session_registry.hpp"
#include "net/exchange.hpp"
#include "net/http_framing.hpp"
#include "net/http_messages.hpp"
#include "net/proxy_runtime.hpp"
#include "net/relay_buffer.hpp"
#include "net/session_types.hpp"
#include "net/tls_stream.hpp"
#include "net/upstream.hpp"
#include "net/worker.hpp"
#include "policy/host.hpp"
#include "policy/url_path.hpp"
#include "secrets/value_masking.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <boost/url/parse.hpp>
#include <chrono>
#include <functional>
#include <openssl/ssl.h>
#include <optional>
#include <spdlog/spdlog.h>
#include <string>
#include <type_traits>

namespace osf::net {

namespace detail {

using osf::net::Exchange;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

// Relay buffer: large enough for throughput, only held while a body moves.
constexpr std::size_t relay_chunk = RelayBuffer::size;
// Free space kept in a read buffer while a body streams: one TLS record.
constexpr std::size_t read_reserve = 16 * 1024;

template <class Stream> void expire_in(Stream& s, std::chrono::seconds d) {
    s.expires_after(d); // tcp_stream or TlsStream
}

// Parses into `p` what has already arrived, without waiting: bytes in `buffer`
// and the TLS records OpenSSL can decrypt from data already taken off the socket
// (the streams are non-blocking underneath, so SSL_read never waits). A burst
// of events or chunks then goes out as one write, and unlike another read it
// cannot stall on a chunk's framing whose rest has not been sent yet.
template <class In, class Parser>
beast::error_code parse_arrived(In& in, beast::flat_buffer& buffer, Parser& p) {
    for (;;) {
        if (p.is_done() || p.get().body().size == 0) return {};
        if (buffer.size() > 0) {
            beast::error_code ec;
            const auto used = p.put(buffer.data(), ec);
            buffer.consume(used);
            if (ec == http::error::need_buffer) return {};
            if (ec && ec != http::error::need_more) return ec;
            if (used > 0) continue;
        }
        if constexpr (requires { in.native_handle(); }) {
            auto space = buffer.prepare(read_reserve);
            clear_tls_errors();
            const int n =
                SSL_read(in.native_handle(), space.data(), static_cast<int>(space.size()));
            clear_tls_errors(); // nothing more (or an error the next real read reports)
            if (n <= 0) return {};
            buffer.commit(static_cast<std::size_t>(n));
        } else {
            return {};
        }
    }
}

// Writes a message held whole in memory: its head and `body` (see MessageFramer).
template <class Stream, bool isRequest, class Body>
asio::awaitable<std::tuple<beast::error_code, std::size_t>>
write_whole(Stream& stream, const http::message<isRequest, Body>& message, std::string_view body,
            bool bodiless = false) {
    MessageFramer framer(message, bodiless);
    co_return co_await asio::async_write(stream, framer.next(body, true), use_tuple);
}

// Writes a short answer of the proxy's own (refusal, bad gateway, MCP reply).
template <class Client>
asio::awaitable<bool> answer(Client& client, Exchange& ex, http::status status,
                             std::string_view content_type, std::string body,
                             std::optional<RefusalReason> refused_by = {}) {
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
asio::awaitable<bool> refuse(Client& client, Exchange& ex, http::status status,
                             RefusalReason reason, const std::string& detail) {
    ex.rec.refused_by = reason;
    ex.finish(Outcome::refused, static_cast<int>(status));
    co_return co_await answer(client, ex, status, "text/plain; charset=utf-8",
                              refusal_body(ex.rec.host, detail), reason);
}

template <class Client>
asio::awaitable<bool> fail(Client& client, Exchange& ex, ErrorKind error,
                           const std::string& detail) {
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

// Moves a body from `in` to `out` as it arrives (the Beast relay pattern), through
// `chunk`, framed by `framer` (whose head goes with the first piece if it has
// not gone yet). Returns {error, true if the error was on the reading side}.
// `before_last_write` runs once the whole body is read, before the write that
// completes it. `prefilled`: `p` has already parsed a first piece into `chunk`
// (its body's size is the room left), which goes out without another read.
template <bool isRequest, class Out, class In>
asio::awaitable<std::pair<beast::error_code, bool>>
relay_body(Out& out, In& in, beast::flat_buffer& in_buffer,
           http::parser<isRequest, http::buffer_body>& p, MessageFramer& framer, RelayBuffer& chunk,
           bool prefilled, std::chrono::seconds idle, std::uint64_t& bytes,
           const std::function<void()>& before_last_write = {}) {
    do {
        if (prefilled) {
            prefilled = false;
        } else if (!p.is_done()) {
            p.get().body().data = chunk.data();
            p.get().body().size = relay_chunk;
            expire_in(in, idle);
            // read_some: what has arrived goes on at once (a stream must not wait
            // for the relay buffer to fill); the reserve avoids 512-byte reads.
            in_buffer.reserve(read_reserve);
            auto [ec, n] = co_await http::async_read_some(in, in_buffer, p, use_tuple);
            if (ec == http::error::need_buffer) ec = {};
            if (ec) co_return std::pair{ec, true};
            // Bytes already here (the rest of a chunk, the last chunk, more TLS
            // records) go out in the same write.
            ec = parse_arrived(in, in_buffer, p);
            if (ec) co_return std::pair{ec, true};
        } else {
            p.get().body().size = relay_chunk; // nothing more: an empty last piece
        }
        const std::size_t size = relay_chunk - p.get().body().size;
        // A read that parsed only framing (a chunk header) has nothing to send.
        if (size == 0 && !p.is_done()) continue;
        bytes += size;
        if (p.is_done() && before_last_write) before_last_write();
        if (framer.done()) break; // a bodiless message: its head was all
        expire_in(out, idle);
        auto [wec, wn] = co_await asio::async_write(
            out, framer.next(std::string_view(chunk.data(), size), p.is_done()), use_tuple);
        if (wec) co_return std::pair{wec, false};
    } while (!p.is_done());
    co_return std::pair{beast::error_code{}, false};
}

// Parses into `chunk` the body bytes that arrived with a message's head, without
// waiting. True when there is something to send with the head (body bytes, or
// the body's end); false when the head must go out alone first: a client of a
// stream waits for it, and more framing alone (a chunk's size line) says
// nothing about when data follows.
template <bool isRequest, class In>
bool prefill_body(In& in, beast::flat_buffer& in_buffer,
                  http::parser<isRequest, http::buffer_body>& p, RelayBuffer& chunk,
                  beast::error_code& ec) {
    p.get().body().data = chunk.data();
    p.get().body().size = relay_chunk;
    ec = parse_arrived(in, in_buffer, p);
    return !ec && (p.is_done() || p.get().body().size < relay_chunk);
}

// A URL's port text: digits only, 1 to 65535 (empty means the scheme's default).
inline bool port_in_range(std::string_view text) {
    if (text.empty()) return true;
    if (text.size() > 5) return false;
    unsigned value = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') return false;
        value = value * 10 + static_cast<unsigned>(c - '0');
    }
    return value >= 1 && value <= 65535;
}

// How a client ended an exchange early: it went away, or sent nothing in time.
inline ErrorKind client_error(const beast::error_code& ec) {
    return ec == beast::error::timeout ? ErrorKind::client_timeout : ErrorKind::client_closed;
}

// A parse error of the message itself, as opposed to the peer going away.
inline bool is_malformed_message(const beast::error_code& ec) {
    return ec.category() == http::make_error_code(http::error::bad_chunk).category() &&
           ec != http::error::end_of_stream && ec != http::error::partial_message &&
           ec != http::error::need_more && ec != http::error::need_buffer;
}

// Raw bytes one way, for an upgraded (WebSocket) connection.
template <class From, class To>
asio::awaitable<void> pump(From& from, To& to, std::chrono::seconds idle, std::uint64_t& bytes) {
    std::unique_ptr<char[]> chunk(new char[16 * 1024]);
    for (;;) {
        expire_in(from, idle);
        auto [ec, n] =
            co_await from.async_read_some(asio::buffer(chunk.get(), 16 * 1024), use_tuple);
        if (ec || n == 0) co_return;
        expire_in(to, idle);
        auto [wec, wn] = co_await asio::async_write(to, asio::buffer(chunk.get(), n), use_tuple);
        if (wec) co_return;
        bytes += n;
    }
}

struct ForwardResult {
    bool retry = false; // a reused upstream connection failed before any answer
    bool client_keep = false;
    bool upstream_reusable = false;
};

// The request as the proxy forwards it: buffered (no body, or an MCP message)
// or streamed from the client.
struct OutgoingRequest {
    std::optional<http::request<http::string_body>> buffered;
    std::optional<http::request_parser<http::buffer_body>> streamed;
    bool head = false;
    bool websocket = false;
    std::vector<secrets::EchoForm> echo_forms; // forms of secrets written into it (Basic...)
};

template <class Client, class Up>
asio::awaitable<ForwardResult> forward(Exchange& ex, Client& client, beast::flat_buffer& cbuf,
                                       UpstreamConnection& conn, Up& up, OutgoingRequest& out,
                                       const mcp::ServerPolicy* mcp_policy) {
    using namespace boost::asio::experimental::awaitable_operators;
    auto& ctx = ex.ctx;
    ForwardResult result;
    const auto idle = ctx.config.limits().idle_timeout;

    // 1. The request.
    const auto sent_at = std::chrono::steady_clock::now();
    expire_in(up, ctx.config.limits().upstream_timeout);
    if (out.buffered) {
        MessageFramer framer(*out.buffered); // here, not in write_whole: one coroutine frame less
        auto [ec, n] =
            co_await asio::async_write(up, framer.next(out.buffered->body(), true), use_tuple);
        if (ec) {
            if (conn.reused)
                result.retry = true;
            else
                co_await fail(client, ex, ErrorKind::upstream_reset,
                              "sending the request: " + ec.message());
            co_return result;
        }
        ex.rec.bytes_up = out.buffered->body().size();
    } else {
        MessageFramer framer(out.streamed->get());
        auto [hec, hn] = co_await asio::async_write(up, framer.next({}, false), use_tuple);
        if (!hec) {
            RelayBuffer chunk;
            auto [ec, client_side] = co_await relay_body(up, client, cbuf, *out.streamed, framer,
                                                         chunk, false, idle, ex.rec.bytes_up);
            hec = ec;
            if (ec && client_side && is_malformed_message(ec)) {
                // A body that is not valid HTTP framing (bad chunk size...): the
                // upstream connection is dropped unfinished, the sandbox gets a 400.
                ex.client_keep = false;
                co_await refuse(client, ex, http::status::bad_request, RefusalReason::bad_request,
                                "malformed request body: " + ec.message());
                co_return result;
            }
            if (ec && client_side) {
                ex.finish_error(client_error(ec), 0);
                co_return result;
            }
        }
        if (hec) {
            co_await fail(client, ex, ErrorKind::upstream_reset,
                          "sending the request: " + hec.message());
            co_return result;
        }
    }

    // 2. The response head (interim 1xx answers other than 101 are skipped).
    std::optional<http::response_parser<http::buffer_body>> interim;
    for (;;) {
        interim.emplace();
        auto& rp = *interim;
        rp.body_limit(boost::none);
        rp.header_limit(static_cast<std::uint32_t>(ctx.config.limits().max_header_bytes));
        if (out.head) rp.skip(true);
        expire_in(up, ctx.config.limits().upstream_timeout);
        conn.buffer.reserve(read_reserve); // a whole TLS record per read, not 512 bytes of it
        if constexpr (std::is_same_v<Up, TlsStream>)
            if (conn.buffer.size() == 0) up.wait_before_next_read();
        auto [ec, n] = co_await http::async_read_header(up, conn.buffer, rp, use_tuple);
        if (ec) {
            if (conn.reused && out.buffered &&
                (ec == http::error::end_of_stream || ec == asio::error::connection_reset ||
                 ec == asio::ssl::error::stream_truncated)) {
                result.retry = true;
                co_return result;
            }
            co_await fail(client, ex,
                          ec == beast::error::timeout ? ErrorKind::upstream_timeout
                                                      : ErrorKind::upstream_reset,
                          "reading the response: " + ec.message());
            co_return result;
        }
        const auto code = rp.get().result_int();
        if (code >= 100 && code < 200 && code != 101) continue;
        break;
    }
    auto& rp = *interim;
    ctx.metrics.observe_upstream_latency(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - sent_at).count());
    auto& res = rp.get();
    ex.rec.status = res.result_int();
    if (res.count(http::field::transfer_encoding) > 1) {
        // Beast's parser and its header read two fields differently (the parser the
        // last coding, the header the first): the body's end would be ambiguous.
        co_await fail(client, ex, ErrorKind::upstream_protocol,
                      "the answer has more than one Transfer-Encoding field");
        co_return result;
    }
    if (res.result() == http::status::switching_protocols && !out.websocket) {
        // Nothing asked for a new protocol (an MCP endpoint is never asked): whatever
        // follows is not HTTP the proxy can read, and is never relayed.
        co_await fail(client, ex, ErrorKind::upstream_protocol,
                      "the upstream switched protocols without being asked to");
        co_return result;
    }
    // An echoed secret never reaches the sandbox: every form the proxy wrote is
    // put back to its placeholder, or the answer is refused.
    if (!ctx.config.secrets.mask_answer_head(res.base(), out.echo_forms)) {
        ex.client_keep = false;
        co_await refuse(client, ex, http::status::bad_gateway, RefusalReason::secret_echo,
                        "the answer names a secret in a header field name");
        co_return result;
    }

    // 3. WebSocket: after the 101, bytes flow both ways untouched until one side closes.
    if (res.result() == http::status::switching_protocols && out.websocket) {
        ex.rec.upgrade = "websocket";
        strip_hop_by_hop(res.base(), true);
        res.version(ex.client_version);
        expire_in(client, idle);
        auto [ec, n] = co_await write_whole(client, res, {}, true);
        ex.responded = true;
        if (!ec && conn.buffer.size() > 0) {
            ex.rec.bytes_down += conn.buffer.size();
            co_await asio::async_write(client, conn.buffer.data(), use_tuple);
            conn.buffer.consume(conn.buffer.size());
        }
        if (!ec && cbuf.size() > 0) {
            ex.rec.bytes_up += cbuf.size();
            co_await asio::async_write(up, cbuf.data(), use_tuple);
            cbuf.consume(cbuf.size());
        }
        if (!ec)
            co_await (pump(client, up, idle, ex.rec.bytes_up) ||
                      pump(up, client, idle, ex.rec.bytes_down));
        ex.finish(Outcome::allowed, 101);
        co_return result; // neither side is reused
    }

    const bool client_keep = ex.client_keep && !ctx.draining.load();
    strip_hop_by_hop(res.base(), false);
    res.version(ex.client_version);
    const bool bodiless = out.head || res.result_int() == 204 || res.result_int() == 304;

    // 4. MCP answers are read before anything reaches the sandbox.
    if (mcp_policy && !bodiless) {
        const auto type = media_type(res[http::field::content_type]);
        const bool has_body = rp.chunked() || !rp.content_length() || *rp.content_length() > 0;
        const bool success = res.result_int() >= 200 && res.result_int() < 300;
        if (has_body && is_encoded(res[http::field::content_encoding])) {
            ex.client_keep = false;
            co_await refuse(client, ex, http::status::bad_gateway, RefusalReason::mcp_unreadable,
                            "the MCP server sent a compressed answer");
            co_return result;
        }
        if (has_body && type == "text/event-stream") {
            mcp::SseFilter filter(*mcp_policy, ctx.mcp_sessions);
            http::response<http::buffer_body> streamed;
            streamed.base() = res.base();
            streamed.erase(http::field::content_length);
            streamed.chunked(true);
            streamed.keep_alive(client_keep);
            MessageFramer framer(streamed);
            expire_in(client, idle);
            auto [hec, hn] = co_await asio::async_write(client, framer.next({}, false), use_tuple);
            ex.responded = true;
            RelayBuffer chunk;
            beast::error_code ec = hec;
            bool upstream_side = false; // the error, if any, came from reading the upstream
            std::string text;           // one output buffer for the whole stream
            auto send = [&](std::string& piece, bool more) -> asio::awaitable<beast::error_code> {
                ex.rec.bytes_down += piece.size();
                expire_in(client, idle);
                auto [wec, wn] =
                    co_await asio::async_write(client, framer.next(piece, !more), use_tuple);
                co_return wec;
            };
            while (!ec && !rp.is_done()) {
                rp.get().body().data = chunk.data();
                rp.get().body().size = relay_chunk;
                expire_in(up, idle);
                conn.buffer.reserve(read_reserve);
                auto [rec_ec, n] = co_await http::async_read_some(up, conn.buffer, rp, use_tuple);
                if (rec_ec == http::error::need_buffer) rec_ec = {};
                // What has arrived with it (a burst of events) is filtered and sent
                // together: fewer, fuller TLS records to the client.
                if (!rec_ec) rec_ec = parse_arrived(up, conn.buffer, rp);
                if (rec_ec) {
                    ec = rec_ec;
                    upstream_side = true;
                    break;
                }
                const auto got = relay_chunk - rp.get().body().size;
                text.clear();
                filter.feed_into(std::string_view(chunk.data(), got), text);
                if (!text.empty()) ec = co_await send(text, true);
            }
            if (!ec) {
                text = filter.finish();
                if (!text.empty()) ec = co_await send(text, true);
            }
            ex.rec.mcp_events_dropped = static_cast<std::int64_t>(filter.events_dropped());
            ex.rec.tools_removed = static_cast<std::int64_t>(filter.tools_removed());
            if (!ec) {
                ex.finish(Outcome::allowed, ex.rec.status); // before the last chunk
                text.clear();
                ec = co_await send(text, false);
            }
            if (ec) {
                ex.finish_error(upstream_side ? ErrorKind::upstream_reset
                                              : ErrorKind::client_closed,
                                ex.rec.status);
                co_return result;
            }
            ex.finish(Outcome::allowed, ex.rec.status);
            result.client_keep = client_keep;
            result.upstream_reusable = rp.keep_alive();
            co_return result;
        }
        if (has_body && type == "application/json") {
            // Beast adds trailer fields to the message it reads into: the head that
            // goes out is the one checked here, kept aside (trailers are dropped).
            auto checked_head = res.base();
            if (rp.content_length() && *rp.content_length() > mcp_policy->max_message_bytes) {
                // Checked before Beast's string body would reserve what it says.
                ex.client_keep = false;
                co_await refuse(client, ex, http::status::bad_gateway,
                                RefusalReason::mcp_unreadable,
                                "the MCP server's answer is over the size limit");
                co_return result;
            }
            http::response_parser<http::string_body> sp{std::move(rp)};
            sp.body_limit(mcp_policy->max_message_bytes);
            conn.buffer.reserve(read_reserve); // whole TLS records per read, not 512 bytes
            expire_in(up, idle);
            auto [ec, n] = co_await http::async_read(up, conn.buffer, sp, use_tuple);
            if (ec == http::error::body_limit) {
                ex.client_keep = false;
                co_await refuse(client, ex, http::status::bad_gateway,
                                RefusalReason::mcp_unreadable,
                                "the MCP server's answer is over the size limit");
                co_return result;
            }
            if (ec) {
                co_await fail(client, ex, ErrorKind::upstream_reset,
                              "reading the response: " + ec.message());
                co_return result;
            }
            const bool reusable = sp.keep_alive();
            auto answer_msg = sp.release();
            restore_checked_head(answer_msg, std::move(checked_head)); // trailers dropped
            auto filtered = mcp::filter_json_response(*mcp_policy, answer_msg.body());
            if (!filtered) {
                co_await refuse(client, ex, http::status::bad_gateway,
                                RefusalReason::mcp_unreadable,
                                "the MCP server's answer is not readable JSON-RPC");
                result.upstream_reusable = reusable;
                co_return result;
            }
            ex.rec.tools_removed = static_cast<std::int64_t>(filtered->tools_removed);
            answer_msg.body() = std::move(filtered->body);
            answer_msg.keep_alive(client_keep);
            answer_msg.prepare_payload();
            ex.rec.bytes_down = answer_msg.body().size();
            ex.finish(Outcome::allowed, ex.rec.status); // on record before it is answered
            expire_in(client, idle);
            auto [wec, wn] = co_await write_whole(client, answer_msg, answer_msg.body());
            ex.responded = true;
            result.client_keep = !wec && client_keep;
            result.upstream_reusable = reusable;
            co_return result;
        }
        if (has_body && success && res.result_int() != 202) { // 202: "Accepted", no tool list
            ex.client_keep = false;
            co_await refuse(client, ex, http::status::bad_gateway, RefusalReason::mcp_unreadable,
                            "the MCP server answered with content type \"" + type + "\"");
            co_return result;
        }
        // Error answers (4xx/5xx) and empty ones carry no tool list: they pass as they are.
    }

    // 5. Everything else streams through.
    if (!bodiless && !rp.chunked() && !rp.content_length() && ex.client_version == 11)
        res.chunked(
            true); // close-delimited upstream: frame it so the client connection stays usable
    const bool close_delimited = !bodiless && !res.chunked() && !res.has_content_length();
    res.keep_alive(client_keep && !close_delimited);
    MessageFramer framer(res, bodiless);
    // The allowed line is written before the write that completes the answer, so
    // an answer a client has in full is always on record, even after kill -9.
    const std::function<void()> log_allowed = [&ex] { ex.finish(Outcome::allowed, ex.rec.status); };
    if (rp.is_done()) log_allowed(); // no body follows: the head is the whole answer
    // The head goes out with the first piece of the body when that piece is here
    // already (one TLS record and one write, not two); otherwise at once, as a
    // client of a stream is waiting for it.
    RelayBuffer chunk;
    bool prefilled = false;
    if (!rp.is_done()) {
        beast::error_code pec;
        prefilled = prefill_body(up, conn.buffer, rp, chunk, pec);
        if (pec) {
            co_await fail(client, ex, ErrorKind::upstream_reset,
                          "reading the response: " + pec.message());
            co_return result;
        }
    }
    if (!prefilled) {
        expire_in(client, idle);
        auto [hec, hn] = co_await asio::async_write(client, framer.next({}, false), use_tuple);
        if (hec) {
            ex.responded = true;
            ex.finish_error(ErrorKind::client_closed, ex.rec.status);
            co_return result;
        }
    }
    ex.responded = true; // from here on a failure cannot become an answer of its own
    auto [ec, upstream_side] = co_await relay_body(client, up, conn.buffer, rp, framer, chunk,
                                                   prefilled, idle, ex.rec.bytes_down, log_allowed);
    if (ec) {
        ex.finish_error(upstream_side ? (ec == beast::error::timeout ? ErrorKind::upstream_timeout
                                                                     : ErrorKind::upstream_reset)
                                      : ErrorKind::client_closed,
                        ex.rec.status);
        co_return result;
    }
    ex.finish(Outcome::allowed, ex.rec.status);
    result.client_keep = client_keep && !close_delimited;
    result.upstream_reusable = rp.keep_alive() && !rp.need_eof();
    co_return result;
}

} // namespace detail

// Handles one request whose head has been read. Returns true when the client
// connection may carry another request.
template <class Client>
boost::asio::awaitable<bool>
handle_request(ProxyRuntime& ctx, Worker& worker, Client& client, boost::beast::flat_buffer& cbuf,
               boost::beast::http::request_parser<boost::beast::http::empty_body>& head,
               const TunnelTarget* tunnel, const ConnectionInfo& conn) {
    using namespace detail;
    auto& req = head.get();
    Exchange ex(ctx, conn, std::string(req.method_string()));
    ex.client_version = req.version() == 10 ? 10 : 11;
    // A Transfer-Encoding whose last coding is not chunked leaves the body's end
    // undefined: the upstream might frame it differently (RFC 9112 6.3), so it is refused.
    const bool unframed_coding = req.count(http::field::transfer_encoding) > 0 && !head.chunked();
    const bool has_body =
        head.chunked() || (head.content_length() && *head.content_length() > 0) || unframed_coding;
    // Without a body left unread the connection stays usable even after a refusal.
    ex.client_keep = req.keep_alive() && !ctx.draining.load();
    auto refuse_request = [&](http::status status, RefusalReason reason,
                              const std::string& detail) -> asio::awaitable<bool> {
        if (has_body) ex.client_keep = false;
        co_return co_await refuse(client, ex, status, reason, detail);
    };

    // Where is it going?
    std::string host;
    std::uint16_t port = 0;
    bool upstream_tls = false;
    std::string target(req.target());
    std::string path;
    if (tunnel) {
        host = tunnel->host;
        port = tunnel->port;
        upstream_tls = tunnel->tls;
        ex.rec.scheme = upstream_tls ? "https" : "http";
        ex.rec.host = host;
        ex.rec.port = port;
        if (!target.starts_with("/")) {
            auto url = boost::urls::parse_absolute_uri(target);
            const auto named = url ? policy::canonical_host(url->encoded_host()) : std::nullopt;
            ex.rec.path = url ? std::string(url->encoded_path()) : std::string();
            if (!url || !named)
                co_return co_await refuse_request(http::status::bad_request,
                                                  RefusalReason::bad_request,
                                                  "the request target is not a path");
            if (url->has_port() && !port_in_range(url->port()))
                co_return co_await refuse_request(http::status::bad_request,
                                                  RefusalReason::bad_request,
                                                  "the port is not a number from 1 to 65535");
            const auto named_port = url->has_port() && !url->port().empty()
                                        ? url->port_number()
                                        : (url->scheme() == "http" ? 80 : 443);
            if (*named != host || named_port != port)
                co_return co_await refuse_request(
                    http::status::forbidden, RefusalReason::host_mismatch,
                    "the request names " + *named + ", not the tunnel's host");
            target = std::string(url->encoded_resource());
            if (!target.starts_with('/')) target.insert(0, "/"); // "http://h?q" is "/?q"
        }
    } else {
        auto url = boost::urls::parse_absolute_uri(target);
        if (!url || (url->scheme() != "http" && url->scheme() != "https")) {
            ex.rec.host = "";
            co_return co_await refuse_request(
                http::status::bad_request, RefusalReason::bad_request,
                "a proxy request needs an absolute http:// URL or CONNECT");
        }
        upstream_tls = url->scheme() == "https";
        ex.rec.scheme = std::string(url->scheme());
        const auto named = policy::canonical_host(url->encoded_host());
        ex.rec.host = named ? *named : std::string(url->encoded_host());
        ex.rec.path = std::string(url->encoded_path());
        if (!named)
            co_return co_await refuse_request(http::status::forbidden, RefusalReason::bad_host,
                                              "not a valid host name");
        host = *named;
        if (url->has_port() && !port_in_range(url->port()))
            co_return co_await refuse_request(http::status::bad_request, RefusalReason::bad_request,
                                              "the port is not a number from 1 to 65535");
        port = url->has_port() && !url->port().empty() ? url->port_number()
                                                       : (upstream_tls ? 443 : 80);
        ex.rec.port = port;
        if (url->has_userinfo())
            co_return co_await refuse_request(http::status::forbidden, RefusalReason::bad_host,
                                              "user information in the URL is not forwarded");
        const auto decision = ctx.config.policy.check_destination(host, port);
        if (!decision.allowed)
            co_return co_await refuse_request(http::status::forbidden, *decision.refused_by,
                                              decision.detail);
        target = std::string(url->encoded_resource());
        if (!target.starts_with('/')) target.insert(0, "/"); // "http://h?q" is "/?q"
    }
    path = target.substr(0, target.find_first_of("?#"));
    ex.rec.path = path;
    // A fragment is never part of a request target (RFC 9112 3.2): cut here and
    // forwarded there, it would make what is checked differ from what is sent.
    if (target.find('#') != std::string::npos)
        co_return co_await refuse_request(http::status::bad_request, RefusalReason::bad_request,
                                          "a fragment ('#') in the request target");
    // Where an MCP endpoint lives, the path must have one reading every server
    // routes on, or MCP traffic could pass as plain egress.
    if (ctx.config.policy.has_mcp_endpoint(host, port))
        if (const auto why = policy::ambiguous_path(path); !why.empty())
            co_return co_await refuse_request(http::status::bad_request, RefusalReason::bad_request,
                                              std::string(why) + " (a host with an MCP endpoint)");
    if (unframed_coding)
        co_return co_await refuse_request(http::status::bad_request, RefusalReason::bad_request,
                                          "a Transfer-Encoding that does not end in chunked");

    // The Host header must name the same destination (no domain fronting).
    const auto host_header = req[http::field::host];
    const bool names_host = !host_header.empty();
    if (host_header.empty()) {
        if (ex.client_version == 11)
            co_return co_await refuse_request(http::status::bad_request, RefusalReason::bad_request,
                                              "no Host header");
    } else {
        const auto hp = policy::split_host_port(host_header, port);
        const auto named = hp ? policy::canonical_host(hp->host) : std::nullopt;
        if (!named || *named != host || hp->port != port)
            co_return co_await refuse_request(http::status::forbidden, RefusalReason::host_mismatch,
                                              "the Host header names another destination");
    }
    if (tunnel && !tunnel->sni_problem.empty())
        co_return co_await refuse_request(http::status::forbidden, RefusalReason::host_mismatch,
                                          tunnel->sni_problem);
    if (req.count(http::field::host) > 1)
        co_return co_await refuse_request(http::status::bad_request, RefusalReason::bad_request,
                                          "more than one Host header");

    // What the proxy does there.
    const osf::McpServer* mcp_server = ctx.config.policy.mcp_server_for(host, port, path);
    const mcp::ServerPolicy* mcp_policy =
        mcp_server ? ctx.config.mcp_policy(mcp_server->name) : nullptr;
    if (mcp_server) ex.rec.mcp_server = mcp_server->name;
    // MCP traffic is read message by message: an upgrade (WebSocket, h2c, any
    // token) would carry tool calls in frames the proxy never reads.
    if (mcp_server && asks_for_upgrade(req))
        co_return co_await refuse_request(
            http::status::forbidden, RefusalReason::mcp_upgrade,
            "an MCP endpoint is not upgraded to another protocol (WebSocket, h2c)");

    OutgoingRequest out;
    out.head = req.method() == http::verb::head;
    out.websocket = beast::websocket::is_upgrade(req);
    const bool expect_continue = beast::iequals(req[http::field::expect], "100-continue");
    req.erase(http::field::expect);
    strip_hop_by_hop(req.base(), out.websocket);
    // One Content-Length, as parsed: equal duplicates ("5, 5") reach the upstream as one.
    if (head.content_length())
        req.set(http::field::content_length, std::to_string(*head.content_length()));
    if (ctx.config.policy.substitutes_secrets(host, port)) {
        // A real value goes only to an upstream whose TLS certificate was verified.
        if (!upstream_tls && ctx.config.secrets.has_placeholder(req.base()))
            co_return co_await refuse_request(
                http::status::forbidden, RefusalReason::secret_cleartext,
                "a secret placeholder is substituted only on https:// requests");
        ex.rec.secrets = ctx.config.secrets.substitute(req.base(), &out.echo_forms);
    }
    req.target(target);
    if (!tunnel || !names_host) // HTTP/1.0 without Host: the destination it was checked for
        req.set(http::field::host,
                port == (upstream_tls ? 443 : 80) ? host : host + ":" + std::to_string(port));
    req.version(11);

    if (expect_continue && has_body) {
        http::response<http::empty_body> cont{http::status::continue_, 11};
        expire_in(client, ctx.config.limits().idle_timeout);
        co_await write_whole(client, cont, {}, true);
    }

    if (mcp_policy) {
        // MCP: the whole message is read and judged before anything is forwarded.
        // The head was parsed without a body limit, so Beast will not check a
        // Content-Length against the one set below (its string body would reserve
        // whatever it says): checked here, before a byte of the body is read.
        if (head.content_length() && *head.content_length() > mcp_policy->max_message_bytes) {
            ex.client_keep = false;
            co_return co_await refuse(client, ex, http::status::payload_too_large,
                                      RefusalReason::mcp_unreadable,
                                      "the MCP message is over the size limit");
        }
        req.set(http::field::accept_encoding, "identity");
        http::request_parser<http::string_body> sp{std::move(head)};
        sp.body_limit(mcp_policy->max_message_bytes);
        // Beast adds a chunked body's trailer fields to the message it reads into:
        // the head forwarded is the one checked above, kept aside.
        auto checked_head = sp.get().base();
        if (has_body) {
            expire_in(client, ctx.config.limits().idle_timeout);
            auto [ec, n] = co_await http::async_read(client, cbuf, sp, use_tuple);
            if (ec == http::error::body_limit) {
                ex.client_keep = false;
                co_return co_await refuse(client, ex, http::status::payload_too_large,
                                          RefusalReason::mcp_unreadable,
                                          "the MCP message is over the size limit");
            }
            if (ec && is_malformed_message(ec)) {
                ex.client_keep = false;
                co_return co_await refuse(client, ex, http::status::bad_request,
                                          RefusalReason::bad_request,
                                          "malformed request body: " + ec.message());
            }
            if (ec) {
                ex.finish_error(client_error(ec), 0);
                co_return false;
            }
        }
        auto message = sp.release();
        if (restore_checked_head(message, std::move(checked_head))) {
            ex.client_keep = false;
            co_return co_await refuse(client, ex, http::status::bad_request,
                                      RefusalReason::bad_request,
                                      "trailer fields on an MCP message");
        }
        if (has_body || message.method() == http::verb::post) {
            auto verdict =
                mcp::inspect_request(*mcp_policy, message[http::field::content_type],
                                     message[http::field::content_encoding], message.body());
            for (const auto& tool : verdict.tools_called) {
                if (!ex.rec.tool.empty()) ex.rec.tool += ",";
                ex.rec.tool += tool;
            }
            const auto session = mcp::session_id_from_url(target);
            std::optional<std::string> substitute;
            if (verdict.action == mcp::RequestVerdict::Action::ReplyJsonRpc && session)
                substitute = mcp::legacy_substitute_body(verdict, *ctx.mcp_sessions, *session);
            if (substitute) {
                // Legacy HTTP+SSE: the refusal travels on the GET stream; the server
                // gets a ping with the same id instead of the call.
                message.body() = std::move(*substitute);
                ex.refused_in_place = true;
            } else if (verdict.action == mcp::RequestVerdict::Action::ReplyJsonRpc) {
                ex.rec.refused_by = RefusalReason::mcp_tool;
                ex.finish(Outcome::refused, verdict.status);
                co_return co_await answer(client, ex, static_cast<http::status>(verdict.status),
                                          "application/json", std::move(verdict.body),
                                          RefusalReason::mcp_tool);
            }
            if (verdict.action == mcp::RequestVerdict::Action::Forward && session)
                for (const auto& id : verdict.tools_list_ids)
                    ctx.mcp_sessions->expect_tools_list(*session, id);
            if (verdict.action == mcp::RequestVerdict::Action::Refuse) {
                ex.rec.refused_by = verdict.refused_by.value_or(RefusalReason::mcp_unreadable);
                ex.finish(Outcome::refused, verdict.status);
                co_return co_await answer(client, ex, static_cast<http::status>(verdict.status),
                                          "application/json", std::move(verdict.body),
                                          ex.rec.refused_by);
            }
        }
        message.prepare_payload();
        out.buffered.emplace(std::move(message));
    } else if (has_body) {
        out.streamed.emplace(std::move(head));
        out.streamed->body_limit(boost::none);
    } else {
        out.buffered.emplace(std::move(head.release().base()));
    }

    // Forward, on a pooled connection if one is idle; once more on a fresh
    // one if the pooled connection turns out closed before any answer. A request
    // that is safe to send twice (RFC 9110 9.2.2) and held whole may take a
    // recently used connection without a look at its socket first.
    const auto method = out.buffered ? out.buffered->method() : http::verb::unknown;
    const bool can_retry =
        out.buffered &&
        (method == http::verb::get || method == http::verb::head || method == http::verb::options ||
         method == http::verb::trace || method == http::verb::put || method == http::verb::delete_);
    for (int attempt = 0; attempt < 2; ++attempt) {
        auto up = co_await acquire_upstream(ctx, worker.pool, host, port, upstream_tls,
                                            tunnel ? &tunnel->endpoints : nullptr, attempt == 0,
                                            can_retry);
        if (!up.connection) {
            if (!up.refusal.allowed && up.refusal.refused_by)
                co_return co_await refuse_request(http::status::forbidden, *up.refusal.refused_by,
                                                  up.refusal.detail);
            co_return co_await fail(client, ex, up.error.value_or(ErrorKind::upstream_connect),
                                    up.detail);
        }
        auto& connection = *up.connection;
        ForwardResult result;
        if (connection.tls)
            result =
                co_await forward(ex, client, cbuf, connection, *connection.secure, out, mcp_policy);
        else
            result =
                co_await forward(ex, client, cbuf, connection, *connection.tcp, out, mcp_policy);
        if (result.retry && attempt == 0) continue;
        if (result.retry) {
            co_return co_await fail(client, ex, ErrorKind::upstream_reset,
                                    "the upstream closed the connection");
        }
        if (result.upstream_reusable) worker.pool.put(std::move(up.connection));
        co_return result.client_keep;
    }
    co_return false;
}

} // namespace osf::net
