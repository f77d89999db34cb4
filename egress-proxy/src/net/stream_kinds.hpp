// What differs between the kinds of stream the exchange code runs on, plain
// TCP (beast::tcp_stream), TLS (TlsStream) and HTTP/2 streams (H2StreamChannel
// on the client leg, H2UpstreamStream on the upstream leg), as overloads: the
// generic code calls them and never asks which kind it has.
#pragma once

#include "net/h2_stream_channel.hpp"
#include "net/h2_upstream.hpp"
#include "net/tls_stream.hpp"

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <cstddef>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

namespace osf::net {

// Appends to `buffer` what can be had without waiting, up to `reserve` bytes,
// and says how much: the TLS records OpenSSL can decrypt from data already
// taken off the socket (the socket is non-blocking underneath, so SSL_read
// never waits). Plain TCP has nothing more: what arrived is in `buffer`.
inline std::size_t read_arrived(TlsStream& stream, boost::beast::flat_buffer& buffer,
                                std::size_t reserve) {
    // Never past the buffer's ceiling (prepare would throw): the next read reports it.
    reserve = std::min(reserve, buffer.max_size() - buffer.size());
    if (reserve == 0) return 0;
    auto space = buffer.prepare(reserve);
    clear_tls_errors();
    const int n = SSL_read(stream.native_handle(), space.data(), static_cast<int>(space.size()));
    clear_tls_errors(); // nothing more (or an error the next real read reports)
    if (n <= 0) return 0;
    buffer.commit(static_cast<std::size_t>(n));
    return static_cast<std::size_t>(n);
}
inline std::size_t read_arrived(boost::beast::tcp_stream&, boost::beast::flat_buffer&,
                                std::size_t) {
    return 0;
}
inline std::size_t read_arrived(H2StreamChannel&, boost::beast::flat_buffer&, std::size_t) {
    return 0; // its reads never wait for the network: a read takes what is there
}
inline std::size_t read_arrived(H2UpstreamStream&, boost::beast::flat_buffer&, std::size_t) {
    return 0;
}

// An origin that writes an answer's head and body apart, with Nagle's
// algorithm on (many small servers), sends the body only once the head is
// acknowledged; having just sent a request, the kernel counts the connection
// as interactive and would hold that acknowledgement up to 40 ms, hoping to
// carry it on data of ours that never comes. The next segments are
// acknowledged at once instead (the option lasts until the kernel sees the
// exchange as interactive again: it is set per request).
inline void acknowledge_answer_at_once(boost::asio::ip::tcp::socket& socket) {
    const int on = 1;
    ::setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_QUICKACK, &on, sizeof(on));
}

// A request has just gone out: the answer cannot be there yet. TLS waits for
// the socket before its first read (one system call less); TCP reads anyway.
inline void expect_answer_later(TlsStream& stream) {
    acknowledge_answer_at_once(stream.socket());
    stream.wait_before_next_read();
}
inline void expect_answer_later(boost::beast::tcp_stream& stream) {
    acknowledge_answer_at_once(stream.socket());
}
inline void expect_answer_later(H2UpstreamStream&) {}

// Waits for the next request on an idle connection without holding a read
// buffer meanwhile, where the stream can (TLS: OpenSSL may hold bytes already).
inline boost::asio::awaitable<boost::beast::error_code> wait_for_next_request(TlsStream& stream) {
    auto [ec] =
        co_await stream.async_wait_readable(boost::asio::as_tuple(boost::asio::use_awaitable));
    co_return ec;
}
inline boost::asio::awaitable<boost::beast::error_code>
wait_for_next_request(boost::beast::tcp_stream&) {
    co_return boost::beast::error_code{}; // the read allocates its buffer as it starts
}

} // namespace osf::net
