// A sandbox's connection to the proxy: plain proxy requests, or CONNECT and
// then an intercepted TLS tunnel (or plain HTTP inside the tunnel).
#pragma once

#include "net/proxy_runtime.hpp"
#include "net/worker.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <string>

namespace osf::net {

// `client` is the client's address as accept() gave it ("ADDR:PORT", or "unix":
// the socket then holds a Unix connection, admin::StreamListener).
boost::asio::awaitable<void> run_client_session(ProxyRuntime& ctx, Worker& worker,
                                                boost::asio::ip::tcp::socket socket,
                                                std::string client);

} // namespace osf::net
