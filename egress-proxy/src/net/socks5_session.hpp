// A client connection that opened with a SOCKS5 greeting (RFC 1928): no
// authentication, the CONNECT command only. A `tcp` destination becomes a raw
// tunnel; an `egress` or MCP destination is served as after an HTTP CONNECT
// (intercepted); anything else, BIND and UDP ASSOCIATE included, is refused
// with its reply code and a log line.
#pragma once

#include "net/session_types.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/beast/core/tcp_stream.hpp>

namespace osf::net {

// `s.buffer` holds the bytes read so far (at least the greeting's first).
boost::asio::awaitable<void> serve_socks5(ClientSession<boost::beast::tcp_stream>& s);

} // namespace osf::net
