// HTTP/1.x on the proxy's port: absolute-form requests, and CONNECT, which
// opens a raw TCP tunnel to a `tcp` destination or an intercepted tunnel, in
// which the same loop (or HTTP/2, net/h2_session.hpp) serves the requests.
// SOCKS5 (net/socks5_session.hpp) opens the same intercepted tunnels.
#pragma once

#include "net/exchange.hpp"
#include "net/session_types.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/beast/core/tcp_stream.hpp>

namespace osf::net {

// Reads request heads on the proxy-facing connection and handles them until
// it ends.
boost::asio::awaitable<void> serve_proxy_requests(ClientSession<boost::beast::tcp_stream>& s);

// A tunnel to an `egress` or MCP destination, once the client has been told it
// is open (a CONNECT's 200, a SOCKS5 success reply; `ex.rec.status` is what it
// got): TLS is intercepted, plain HTTP is served as it is, anything else is cut
// off and logged. `target` is resolved and checked.
boost::asio::awaitable<void> serve_intercepted_tunnel(ClientSession<boost::beast::tcp_stream>& s,
                                                      Exchange& ex, TunnelTarget& target);

} // namespace osf::net
