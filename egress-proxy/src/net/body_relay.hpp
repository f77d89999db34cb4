// Moving message bodies and raw bytes between the client and the upstream as
// they arrive, with the idle timeout on every wait. Templates over the two
// stream kinds; what differs between them is in stream_kinds.hpp.
#pragma once

#include "net/http_framing.hpp"
#include "net/read_errors.hpp"
#include "net/relay_buffer.hpp"
#include "net/stream_kinds.hpp"
#include "net/use_tuple.hpp"
#include "osf/log_fields.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string_view>
#include <utility>

namespace osf::net {

// Relay buffer: large enough for throughput, only held while a body moves.
constexpr std::size_t relay_chunk = RelayBuffer::size;
// Free space kept in a read buffer while a body streams: one TLS record.
constexpr std::size_t read_reserve = 16 * 1024;

template <class Stream> void expire_in(Stream& s, std::chrono::seconds d) {
    s.expires_after(d); // tcp_stream or TlsStream
}

// Parses into `p` what has already arrived, without waiting: bytes in `buffer`
// and what the stream can hand out without a wait (read_arrived). A burst of
// events or chunks then goes out as one write, and unlike another read it
// cannot stall on a chunk's framing whose rest has not been sent yet.
template <class In, class Parser>
boost::beast::error_code parse_arrived(In& in, boost::beast::flat_buffer& buffer, Parser& p) {
    namespace http = boost::beast::http;
    for (;;) {
        if (p.is_done() || p.get().body().size == 0) return {};
        if (buffer.size() > 0) {
            boost::beast::error_code ec;
            const auto used = p.put(buffer.data(), ec);
            buffer.consume(used);
            if (ec == http::error::need_buffer) return {};
            if (ec && ec != http::error::need_more) return ec;
            if (used > 0) continue;
        }
        if (read_arrived(in, buffer, read_reserve) == 0) return {};
    }
}

// Rewrites a body as it streams (AWS chunk signatures): appends to `out` what
// to send for the bytes `in`; `last` with the body's last bytes. False: the
// body must go no further (the transform keeps why).
using BodyTransform = std::function<bool(std::string_view in, bool last, std::string& out)>;

// Moves a body from `in` to `out` as it arrives (the Beast relay pattern), through
// `chunk`, framed by `framer` (whose head goes with the first piece if it has
// not gone yet). Returns {error, true if the error was on the reading side}.
// `before_last_write` runs once the whole body is read, before the write that
// completes it. `prefilled`: `p` has already parsed a first piece into `chunk`
// (its body's size is the room left), which goes out without another read.
// `transform`, when given, rewrites each piece before it goes (a failure is
// reported as a malformed message on the reading side).
template <bool isRequest, class Out, class In>
boost::asio::awaitable<std::pair<boost::beast::error_code, bool>>
relay_body(Out& out, In& in, boost::beast::flat_buffer& in_buffer,
           boost::beast::http::parser<isRequest, boost::beast::http::buffer_body>& p,
           MessageFramer& framer, RelayBuffer& chunk, bool prefilled, std::chrono::seconds idle,
           std::uint64_t& bytes, const std::function<void()>& before_last_write = {},
           const BodyTransform* transform = nullptr) {
    namespace http = boost::beast::http;
    std::string transformed;
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
        std::string_view piece(chunk.data(), size);
        if (transform) {
            transformed.clear();
            if (!(*transform)(piece, p.is_done(), transformed))
                co_return std::pair{boost::beast::error_code(http::error::bad_chunk), true};
            piece = transformed;
        }
        expire_in(out, idle);
        auto [wec, wn] =
            co_await boost::asio::async_write(out, framer.next(piece, p.is_done()), use_tuple);
        if (wec) co_return std::pair{wec, false};
    } while (!p.is_done());
    co_return std::pair{boost::beast::error_code{}, false};
}

// Parses into `chunk` the body bytes that arrived with a message's head, without
// waiting. True when there is something to send with the head (body bytes, or
// the body's end); false when the head must go out alone first: a client of a
// stream waits for it, and more framing alone (a chunk's size line) says
// nothing about when data follows.
template <bool isRequest, class In>
bool prefill_body(In& in, boost::beast::flat_buffer& in_buffer,
                  boost::beast::http::parser<isRequest, boost::beast::http::buffer_body>& p,
                  RelayBuffer& chunk, boost::beast::error_code& ec) {
    p.get().body().data = chunk.data();
    p.get().body().size = relay_chunk;
    ec = parse_arrived(in, in_buffer, p);
    return !ec && (p.is_done() || p.get().body().size < relay_chunk);
}

// Raw bytes one way, for an upgraded (WebSocket) connection.
template <class From, class To>
boost::asio::awaitable<void> pump(From& from, To& to, std::chrono::seconds idle,
                                  std::uint64_t& bytes) {
    std::unique_ptr<char[]> chunk(new char[16 * 1024]);
    for (;;) {
        expire_in(from, idle);
        auto [ec, n] =
            co_await from.async_read_some(boost::asio::buffer(chunk.get(), 16 * 1024), use_tuple);
        if (ec || n == 0) co_return;
        expire_in(to, idle);
        auto [wec, wn] =
            co_await boost::asio::async_write(to, boost::asio::buffer(chunk.get(), n), use_tuple);
        if (wec) co_return;
        bytes += n;
    }
}

} // namespace osf::net
