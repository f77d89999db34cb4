// HTTP/2 with a client inside an intercepted tunnel (it chose h2 in ALPN),
// with nghttp2 as the codec. Each stream becomes one request on the one
// request path (request_handler.hpp), through an H2StreamChannel: the same
// admission, secrets, MCP filter and log line as an HTTP/1.1 request. The
// limits HTTP/2 adds (streams at once, header list size, CONTINUATION, reset,
// SETTINGS and PING floods, flow-control windows) are set here.
#pragma once

#include "net/session_types.hpp"
#include "net/tls_stream.hpp"

#include <boost/asio/awaitable.hpp>
#include <cstddef>

namespace osf::net {

// Serves the tunnel's HTTP/2 connection until it ends; returns how many
// requests (streams) it handled, each with its own log line.
boost::asio::awaitable<std::size_t> serve_h2(ClientSession<TlsStream>& session);

} // namespace osf::net
