// A sandbox's connection to the proxy: plain proxy requests, or CONNECT and
// then an intercepted TLS tunnel (or plain HTTP inside the tunnel), or a raw
// TCP tunnel to a `tcp` destination; or SOCKS5 (net/socks5_session.hpp).
#pragma once

#include "net/exchange.hpp"
#include "net/proxy_runtime.hpp"
#include "net/session_types.hpp"
#include "net/worker.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <string>

namespace osf::net {

// `client` is the client's address as accept() gave it ("ADDR:PORT", or "unix":
// the socket then holds a Unix connection, admin::StreamListener).
boost::asio::awaitable<void> run_client_session(ProxyRuntime& ctx, Worker& worker,
                                                boost::asio::ip::tcp::socket socket,
                                                std::string client);

// A tunnel to an `egress` or MCP destination, once the client has been told it
// is open (a CONNECT's 200, a SOCKS5 success reply; `ex.rec.status` is what it
// got): TLS is intercepted, plain HTTP is served as it is, anything else is cut
// off and logged. `target` is resolved and checked.
boost::asio::awaitable<void> serve_intercepted_tunnel(ClientSession<boost::beast::tcp_stream>& s,
                                                      Exchange& ex, TunnelTarget& target);

} // namespace osf::net
