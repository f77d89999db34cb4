// Relaying an MCP server's answer once decide_answer() has said how: an event
// stream filtered event by event as it arrives, or a JSON body read whole,
// filtered and sent. Nothing of it reaches the client unfiltered.
#pragma once

#include "mcp/mcp_filter.hpp"
#include "net/body_relay.hpp"
#include "net/forwarding.hpp"
#include "net/local_reply.hpp"
#include "net/proxy_runtime.hpp"
#include "policy/announced_endpoints.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/beast/http.hpp>
#include <string>

namespace osf::net {

// text/event-stream: the head goes out at once (chunked), then each burst of
// events as the filter lets it through.
template <class Client, class Up>
boost::asio::awaitable<ForwardResult>
relay_mcp_event_stream(ExchangeLeg<Client, Up> leg,
                       boost::beast::http::response_parser<boost::beast::http::buffer_body>& rp,
                       const mcp::ServerPolicy& server, bool client_keep) {
    namespace http = boost::beast::http;
    auto& ex = leg.ex;
    auto& ctx = ex.ctx;
    const auto idle = ctx.config.limits().idle_timeout;
    ForwardResult result;
    mcp::SseFilter filter(server, ctx.mcp_sessions);
    // An endpoint the server announces is MCP traffic from before the client
    // learns it, on every connection (policy/announced_endpoints.hpp).
    filter.on_endpoint([&](std::string_view data) {
        const policy::StreamUrl stream{ex.rec.scheme, ex.rec.host, ex.rec.port, ex.rec.path};
        const auto endpoint = policy::resolve_announced_endpoint(stream, data);
        return endpoint && ctx.mcp_endpoints->add(server.name, *endpoint);
    });
    http::response<http::buffer_body> streamed;
    streamed.base() = rp.get().base();
    streamed.erase(http::field::content_length);
    streamed.chunked(true);
    streamed.keep_alive(client_keep);
    MessageFramer framer(streamed);
    expire_in(leg.client, idle);
    auto [hec, hn] =
        co_await boost::asio::async_write(leg.client, framer.next({}, false), use_tuple);
    ex.responded = true;
    RelayBuffer chunk;
    boost::beast::error_code ec = hec;
    bool upstream_side = false; // the error, if any, came from reading the upstream
    std::string text;           // one output buffer for the whole stream
    auto send = [&](std::string& piece,
                    bool more) -> boost::asio::awaitable<boost::beast::error_code> {
        ex.rec.bytes_down += piece.size();
        expire_in(leg.client, idle);
        auto [wec, wn] =
            co_await boost::asio::async_write(leg.client, framer.next(piece, !more), use_tuple);
        co_return wec;
    };
    while (!ec && !rp.is_done()) {
        rp.get().body().data = chunk.data();
        rp.get().body().size = relay_chunk;
        expire_in(leg.up, idle);
        leg.conn.buffer.reserve(read_reserve);
        auto [rec_ec, n] = co_await http::async_read_some(leg.up, leg.conn.buffer, rp, use_tuple);
        if (rec_ec == http::error::need_buffer) rec_ec = {};
        // What has arrived with it (a burst of events) is filtered and sent
        // together: fewer, fuller TLS records to the client.
        if (!rec_ec) rec_ec = parse_arrived(leg.up, leg.conn.buffer, rp);
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
        ex.finish_error(upstream_side ? answer_read_error(ec) : ErrorKind::client_closed,
                        ex.rec.status);
        co_return result;
    }
    result.client_keep = client_keep;
    result.upstream_reusable = rp.keep_alive();
    co_return result;
}

// application/json: read whole (up to the message limit), filtered, then sent
// with its own Content-Length.
template <class Client, class Up>
boost::asio::awaitable<ForwardResult>
relay_mcp_json(ExchangeLeg<Client, Up> leg,
               boost::beast::http::response_parser<boost::beast::http::buffer_body>&& rp,
               const mcp::ServerPolicy& server, bool client_keep) {
    namespace http = boost::beast::http;
    auto& ex = leg.ex;
    const auto idle = ex.ctx.config.limits().idle_timeout;
    ForwardResult result;
    // Beast adds trailer fields to the message it reads into: the head that
    // goes out is the one checked here, kept aside (trailers are dropped).
    auto checked_head = rp.get().base();
    http::response_parser<http::string_body> sp{std::move(rp)};
    sp.body_limit(server.max_message_bytes);
    leg.conn.buffer.reserve(read_reserve); // whole TLS records per read, not 512 bytes
    expire_in(leg.up, idle);
    auto [ec, n] = co_await http::async_read(leg.up, leg.conn.buffer, sp, use_tuple);
    if (ec == http::error::body_limit) {
        ex.client_keep = false;
        co_await refuse(leg.client, ex, http::status::bad_gateway, RefusalReason::mcp_unreadable,
                        "the MCP server's answer is over the size limit");
        co_return result;
    }
    if (ec) {
        co_await fail(leg.client, ex, answer_read_error(ec),
                      "reading the response: " + ec.message());
        co_return result;
    }
    const bool reusable = sp.keep_alive();
    auto answer_msg = sp.release();
    restore_checked_head(answer_msg, std::move(checked_head)); // trailers dropped
    auto filtered = mcp::filter_json_response(server, answer_msg.body());
    if (!filtered) {
        co_await refuse(leg.client, ex, http::status::bad_gateway, RefusalReason::mcp_unreadable,
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
    expire_in(leg.client, idle);
    auto [wec, wn] = co_await write_whole(leg.client, answer_msg, answer_msg.body());
    ex.responded = true;
    result.client_keep = !wec && client_keep;
    result.upstream_reusable = reusable;
    co_return result;
}

} // namespace osf::net
