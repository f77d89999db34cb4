// A sandbox's connection to the proxy, from accept() to its end: HTTP
// (net/http_proxy_session.hpp) or SOCKS5 (net/socks5_session.hpp), told
// apart by the first byte.
#pragma once

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

} // namespace osf::net
