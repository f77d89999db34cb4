// Forwarding one admitted request on an upstream connection and relaying the
// answer: the request (whole or streamed), the answer head (1xx skipped), a
// WebSocket's bytes after a 101, an MCP answer as plan_answer() says, or
// any other answer streamed through. The log line is written by the time the
// client has the whole answer.
#pragma once

#include "admission/answer_plan.hpp"
#include "h2/message_mapping.hpp"
#include "h2/origin_error.hpp"
#include "mcp/answer_handling.hpp"
#include "mcp/media_type.hpp"
#include "net/body_relay.hpp"
#include "net/forwarding.hpp"
#include "net/http_messages.hpp"
#include "net/local_reply.hpp"
#include "net/mcp_answer_relay.hpp"
#include "net/proxy_runtime.hpp"
#include "net/stream_kinds.hpp"
#include "policy/announced_endpoints.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <functional>
#include <optional>

namespace osf::net {

namespace forwarding {

// 1. The request: returns false when it could not be sent (the exchange has
// ended, or `result.retry` says a reused connection was found closed).
template <class Client, class Up>
boost::asio::awaitable<bool> send_request(ExchangeLeg<Client, Up>& leg, ForwardResult& result) {
    namespace http = boost::beast::http;
    auto& ex = leg.ex;
    auto& out = leg.out;
    expire_in(leg.up, ex.ctx.config.limits().upstream_timeout);
    if (out.buffered) {
        MessageFramer framer(*out.buffered); // here, not in write_whole: one coroutine frame less
        auto [ec, n] = co_await boost::asio::async_write(
            leg.up, framer.next(out.buffered->body(), true), use_tuple);
        if (ec) {
            if ((leg.conn.reused && !leg.conn.h2()) || ec == h2::OriginError::refused_stream)
                result.retry = true;
            else
                co_await fail(leg.client, ex, ErrorKind::upstream_reset,
                              "sending the request: " + ec.message());
            co_return false;
        }
        ex.rec.bytes_up = out.buffered->body().size();
        co_return true;
    }
    MessageFramer framer(out.streamed->get());
    auto [hec, hn] = co_await boost::asio::async_write(leg.up, framer.next({}, false), use_tuple);
    if (!hec) {
        RelayBuffer chunk;
        auto [ec, client_side] =
            co_await relay_body(leg.up, leg.client, leg.client_buffer, *out.streamed, framer, chunk,
                                false, ex.ctx.config.limits().idle_timeout, ex.rec.bytes_up, {},
                                out.body_transform ? &out.body_transform : nullptr);
        hec = ec;
        if (ec && client_side && !out.body_refusal.empty()) {
            // The upstream connection is dropped unfinished: the origin never
            // gets the rest of a body the proxy could not sign again.
            ex.client_keep = false;
            co_await refuse(leg.client, ex, http::status::forbidden,
                            RefusalReason::aws_signature_not_placeholder, out.body_refusal);
            co_return false;
        }
        if (ec && client_side) {
            if (auto refusal = body_read_refusal(ec, ex.ctx.config.limits().read_buffer_bytes())) {
                // A body over a ceiling or not valid HTTP framing (bad chunk
                // size...): the upstream connection is dropped unfinished.
                ex.client_keep = false;
                co_await refuse(leg.client, ex, refusal->status, refusal->reason, refusal->detail);
                co_return false;
            }
            ex.finish_error(client_error(ec), 0);
            co_return false;
        }
    }
    if (hec) {
        co_await fail(leg.client, ex, ErrorKind::upstream_reset,
                      "sending the request: " + hec.message());
        co_return false;
    }
    co_return true;
}

// 2. The answer head (interim 1xx answers other than 101 are skipped); false
// when there is none (the exchange has ended, or `result.retry`).
template <class Client, class Up>
boost::asio::awaitable<bool> read_answer_head(
    ExchangeLeg<Client, Up>& leg,
    std::optional<boost::beast::http::response_parser<boost::beast::http::buffer_body>>& parser,
    ForwardResult& result) {
    namespace http = boost::beast::http;
    namespace asio = boost::asio;
    auto& ex = leg.ex;
    const auto& limits = ex.ctx.config.limits();
    for (;;) {
        parser.emplace();
        auto& rp = *parser;
        rp.body_limit(boost::none);
        rp.header_limit(static_cast<std::uint32_t>(limits.max_header_bytes));
        if (leg.out.head) rp.skip(true);
        expire_in(leg.up, limits.upstream_timeout);
        leg.conn.buffer.reserve(read_reserve); // a whole TLS record per read, not 512 bytes of it
        if (leg.conn.buffer.size() == 0) expect_answer_later(leg.up);
        auto [ec, n] = co_await http::async_read_header(leg.up, leg.conn.buffer, rp, use_tuple);
        if (ec) {
            // Sent again (once, on a new connection): a reused HTTP/1.1 connection
            // the upstream had closed, or a stream an HTTP/2 origin did not process.
            // A stream it reset may have been acted on, so it is not.
            const bool reused_and_closed =
                leg.conn.reused && !leg.conn.h2() &&
                (ec == http::error::end_of_stream || ec == asio::error::connection_reset ||
                 ec == asio::ssl::error::stream_truncated);
            if (leg.out.buffered && (reused_and_closed || ec == h2::OriginError::refused_stream)) {
                result.retry = true;
                co_return false;
            }
            co_await fail(leg.client, ex, answer_read_error(ec),
                          "reading the response: " + ec.message());
            co_return false;
        }
        const auto code = rp.get().result_int();
        if (code >= 100 && code < 200 && code != 101) continue;
        co_return true;
    }
}

// 3. WebSocket: after the 101, bytes flow both ways untouched until one side closes.
template <class Client, class Up>
boost::asio::awaitable<void>
relay_websocket(ExchangeLeg<Client, Up>& leg,
                boost::beast::http::response<boost::beast::http::buffer_body>& res) {
    using namespace boost::asio::experimental::awaitable_operators;
    auto& ex = leg.ex;
    const auto idle = ex.ctx.config.limits().idle_timeout;
    ex.rec.upgrade = "websocket";
    strip_hop_by_hop(res.base(), true);
    res.version(ex.client_version);
    expire_in(leg.client, idle);
    auto [ec, n] = co_await write_whole(leg.client, res, {}, true);
    ex.responded = true;
    if (!ec && leg.conn.buffer.size() > 0) {
        ex.rec.bytes_down += leg.conn.buffer.size();
        co_await boost::asio::async_write(leg.client, leg.conn.buffer.data(), use_tuple);
        leg.conn.buffer.consume(leg.conn.buffer.size());
    }
    if (!ec && leg.client_buffer.size() > 0) {
        ex.rec.bytes_up += leg.client_buffer.size();
        co_await boost::asio::async_write(leg.up, leg.client_buffer.data(), use_tuple);
        leg.client_buffer.consume(leg.client_buffer.size());
    }
    if (!ec)
        co_await (pump(leg.client, leg.up, idle, ex.rec.bytes_up) ||
                  pump(leg.up, leg.client, idle, ex.rec.bytes_down));
    ex.finish(Outcome::allowed, 101);
}

// The trailer fields Beast added to `res` after its head was `head`, as lines
// for the last chunk: masked as the head was (none at all when one could not
// be), framing and routing fields left out.
inline std::string trailer_lines(Exchange& ex,
                                 boost::beast::http::response<boost::beast::http::buffer_body>& res,
                                 const h2::HeaderList& head) {
    if (!ex.ctx.written_forms.mask_answer_head(res.base())) return {};
    std::string lines;
    for (const auto& field : h2::added_fields(res.base(), head)) {
        if (field.name == "content-length" || field.name == "host" || field.name == "trailer" ||
            field.name == "te")
            continue;
        lines.append(field.name);
        lines.append(": ");
        lines.append(field.value);
        lines.append("\r\n");
    }
    return lines;
}

// 5. Any other answer streams through as it arrives.
template <class Client, class Up>
boost::asio::awaitable<ForwardResult>
relay_answer(ExchangeLeg<Client, Up>& leg,
             boost::beast::http::response_parser<boost::beast::http::buffer_body>& rp,
             bool bodiless, bool client_keep) {
    auto& ex = leg.ex;
    auto& res = rp.get();
    const auto idle = ex.ctx.config.limits().idle_timeout;
    ForwardResult result;
    // The head carries the framing apply_answer_framing wrote (a close-delimited
    // answer is chunked for an HTTP/1.1 client, so its connection stays usable).
    const bool close_delimited = !bodiless && !res.chunked() && !res.has_content_length();
    res.keep_alive(client_keep && !close_delimited);
    MessageFramer framer(res, bodiless);
    // Trailer fields (gRPC's status) go on to an HTTP/2 client, masked as the
    // head was; to an HTTP/1.1 client they are dropped, as before. Only a
    // chunked answer can have them: no other answer pays for looking.
    const bool relays_trailers = ex.rec.http2 && rp.chunked();
    const auto head = relays_trailers ? h2::to_h2_fields(res.base()) : h2::HeaderList{};
    // The allowed line is written before the write that completes the answer, so
    // an answer a client has in full is always on record, even after kill -9.
    // (Two lambdas: the one without trailers fits std::function's own storage,
    // so an answer that cannot have any allocates nothing for it.)
    const std::function<void()> log_allowed =
        relays_trailers
            ? std::function<void()>([&] {
                  framer.trailers(trailer_lines(ex, res, head));
                  ex.finish(Outcome::allowed, ex.rec.status);
              })
            : std::function<void()>([&ex] { ex.finish(Outcome::allowed, ex.rec.status); });
    if (rp.is_done()) log_allowed(); // no body follows: the head is the whole answer
    // The head goes out with the first piece of the body when that piece is here
    // already (one TLS record and one write, not two); otherwise at once, as a
    // client of a stream is waiting for it.
    RelayBuffer chunk;
    bool prefilled = false;
    if (!rp.is_done()) {
        boost::beast::error_code pec;
        prefilled = prefill_body(leg.up, leg.conn.buffer, rp, chunk, pec);
        if (pec) {
            co_await fail(leg.client, ex, answer_read_error(pec),
                          "reading the response: " + pec.message());
            co_return result;
        }
    }
    if (!prefilled) {
        expire_in(leg.client, idle);
        auto [hec, hn] =
            co_await boost::asio::async_write(leg.client, framer.next({}, false), use_tuple);
        if (hec) {
            ex.responded = true;
            ex.finish_error(ErrorKind::client_closed, ex.rec.status);
            co_return result;
        }
    }
    ex.responded = true; // from here on a failure cannot become an answer of its own
    auto [ec, upstream_side] =
        co_await relay_body(leg.client, leg.up, leg.conn.buffer, rp, framer, chunk, prefilled, idle,
                            ex.rec.bytes_down, log_allowed);
    if (ec) {
        ex.finish_error(upstream_side ? answer_read_error(ec) : ErrorKind::client_closed,
                        ex.rec.status);
        co_return result;
    }
    ex.finish(Outcome::allowed, ex.rec.status);
    result.client_keep = client_keep && !close_delimited;
    result.upstream_reusable = rp.keep_alive() && !rp.need_eof();
    co_return result;
}

// 6. The answer, from its head on: decided from the head
// (admission/answer_plan.hpp), then relayed as the plan says.
template <class Client, class Up>
boost::asio::awaitable<ForwardResult>
relay_upstream_answer(ExchangeLeg<Client, Up>& leg, const mcp::ServerPolicy* mcp,
                      const mcp::ServerPolicy* mcp_host,
                      std::chrono::steady_clock::time_point sent_at) {
    namespace http = boost::beast::http;
    auto& ex = leg.ex;
    auto& ctx = ex.ctx;
    ForwardResult result;
    std::optional<http::response_parser<http::buffer_body>> parser;
    if (!co_await read_answer_head(leg, parser, result)) co_return result;
    auto& rp = *parser;
    ctx.metrics.observe_upstream_latency(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - sent_at).count());
    auto& res = rp.get();
    ex.rec.status = res.result_int();
    // What happens to the answer is decided from its head (admission/answer_plan.hpp).
    const auto parsed_length = rp.content_length();
    const auto content_length =
        parsed_length ? std::optional<std::uint64_t>(*parsed_length) : std::nullopt;
    admission::AnswerPlanFacts facts;
    facts.framing = {static_cast<int>(res.result_int()),
                     leg.out.head,
                     static_cast<std::size_t>(res.count(http::field::transfer_encoding)),
                     res[http::field::transfer_encoding],
                     content_length,
                     ex.client_version};
    facts.websocket_asked = leg.out.websocket;
    facts.websocket_switch =
        res.result() == http::status::switching_protocols && is_websocket_switch(res);
    // On a host where an MCP server lives, an event stream is that server's,
    // whatever the path: it may announce endpoints, or answer with tool lists.
    if (!mcp && mcp_host &&
        mcp::parse_media_type(res[http::field::content_type]).type == mcp::MediaType::EventStream) {
        mcp = mcp_host;
        ex.rec.mcp_server = mcp_host->name;
    }
    facts.mcp = mcp;
    if (mcp)
        facts.mcp_answer = {static_cast<int>(res.result_int()),
                            leg.out.head,
                            rp.chunked(),
                            content_length,
                            res[http::field::content_type],
                            res[http::field::content_encoding]};
    const auto plan = admission::plan_answer(facts);
    if (plan.action == admission::AnswerAction::fail) {
        co_await fail(leg.client, ex, plan.error, plan.detail);
        co_return result;
    }
    // An echoed secret never reaches the sandbox: every form the proxy wrote,
    // in this request or any before it, is put back to its placeholder, or the
    // answer is refused.
    if (!ctx.written_forms.mask_answer_head(res.base())) {
        ex.client_keep = false;
        co_await refuse(leg.client, ex, http::status::bad_gateway, RefusalReason::secret_echo,
                        "the answer names a secret in a header field name, or holds one "
                        "where its placeholder would not fit");
        co_return result;
    }
    // A redirect from an MCP endpoint names where the client goes next (fetch
    // follows a 307 with its body): an endpoint the server announces, recorded
    // before the client learns it, or the answer is refused.
    if (mcp && res.result_int() >= 300 && res.result_int() < 400 &&
        res.count(http::field::location) > 0) {
        const policy::StreamUrl here{ex.rec.scheme, ex.rec.host, ex.rec.port, ex.rec.path};
        const auto endpoint =
            res.count(http::field::location) == 1
                ? policy::resolve_announced_endpoint(here, res[http::field::location])
                : std::nullopt;
        if (!endpoint || !ctx.mcp_endpoints->add(mcp->name, *endpoint)) {
            ex.client_keep = false;
            co_await refuse(leg.client, ex, http::status::bad_gateway,
                            RefusalReason::mcp_unreadable,
                            "a redirect from an MCP endpoint to a place the proxy cannot record");
            co_return result;
        }
    }
    if (plan.action == admission::AnswerAction::websocket) {
        co_await relay_websocket(leg, res);
        co_return result; // neither side is reused
    }
    if (plan.action == admission::AnswerAction::refuse) {
        ex.client_keep = false;
        co_await refuse(leg.client, ex, http::status::bad_gateway, plan.reason, plan.detail);
        co_return result;
    }

    const bool client_keep = ex.client_keep && !ctx.draining.load();
    strip_hop_by_hop(res.base(), false);
    res.version(ex.client_version);
    apply_answer_framing(res.base(), plan.framing, content_length);
    switch (plan.action) {
    case admission::AnswerAction::filter_sse:
        co_return co_await relay_mcp_event_stream(leg, rp, *mcp, client_keep);
    case admission::AnswerAction::filter_json:
        co_return co_await relay_mcp_json(leg, std::move(rp), *mcp, client_keep);
    default:
        break;
    }
    const bool bodiless = plan.framing.body == admission::AnswerBody::none;
    co_return co_await relay_answer(leg, rp, bodiless, client_keep);
}

// 1b. A streamed request body sent beside its answer (an HTTP/2 origin, which
// may answer while the body still comes: gRPC's streams). A failure here
// abandons the stream; the answer's side sees it and reports it.
template <class Client>
boost::asio::awaitable<void> send_body_beside_answer(ExchangeLeg<Client, H2UpstreamStream>& leg) {
    auto& ex = leg.ex;
    const auto idle = ex.ctx.config.limits().idle_timeout;
    MessageFramer framer(leg.out.streamed->get());
    expire_in(leg.up, ex.ctx.config.limits().upstream_timeout);
    auto [ec, n] = co_await boost::asio::async_write(leg.up, framer.next({}, false), use_tuple);
    if (!ec) {
        RelayBuffer chunk;
        auto [rec, client_side] = co_await relay_body(
            leg.up, leg.client, leg.client_buffer, *leg.out.streamed, framer, chunk, false, idle,
            ex.rec.bytes_up, {}, leg.out.body_transform ? &leg.out.body_transform : nullptr);
        ec = rec;
    }
    if (ec) leg.up.abandon();
}

} // namespace forwarding

// Forwards `leg.out` on `leg.up` and relays the answer. `mcp`: the request is
// MCP traffic, and so is its answer. `mcp_host`: the MCP server living on the
// request's host (an event stream answered is read as its).
template <class Client, class Up>
boost::asio::awaitable<ForwardResult> forward(ExchangeLeg<Client, Up> leg,
                                              const mcp::ServerPolicy* mcp,
                                              const mcp::ServerPolicy* mcp_host = nullptr) {
    using namespace forwarding;
    const auto sent_at = std::chrono::steady_clock::now();
    // From the first write on, the request may have reached the origin: its
    // line is never folded, however the exchange ends (log/refusal_folding.hpp).
    leg.ex.rec.reached_upstream = true;
    if constexpr (std::is_same_v<Up, H2UpstreamStream>) {
        // A body rewritten as it streams (AWS chunk signatures) goes whole first,
        // so that a chunk that fails its check is answered as a refusal.
        if (leg.out.streamed && !mcp && !leg.out.body_transform) {
            using namespace boost::asio::experimental::awaitable_operators;
            co_return co_await (send_body_beside_answer(leg) &&
                                relay_upstream_answer(leg, mcp, mcp_host, sent_at));
        }
    }
    ForwardResult result;
    if (!co_await send_request(leg, result)) co_return result;
    co_return co_await relay_upstream_answer(leg, mcp, mcp_host, sent_at);
}

} // namespace osf::net
