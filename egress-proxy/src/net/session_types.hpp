// Plain data shared by the session stages.
#pragma once

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace osf::net {

struct ProxyRuntime;
struct Worker;
class ClientRegistration;

// Counts a connection (or tunnel) as open for as long as it lives.
struct OpenGauge {
    std::atomic<std::int64_t>& gauge;
    explicit OpenGauge(std::atomic<std::int64_t>& g) : gauge(g) { gauge.fetch_add(1); }
    ~OpenGauge() { gauge.fetch_sub(1); }
};

struct ConnectionInfo {
    std::uint64_t id = 0;
    std::string client; // "ip:port" of the sandbox side
    bool http2 = false; // requests come as HTTP/2 streams (logged as such)
    std::string via{};  // "socks5": the connection came in by SOCKS5 (every line says so)
};

// The destination a CONNECT tunnel was opened to, checked by the policy.
struct TunnelTarget {
    std::string host; // canonical
    std::uint16_t port = 0;
    bool tls = true; // intercepted TLS inside: the upstream leg is TLS too
    std::vector<boost::asio::ip::tcp::endpoint> endpoints; // resolved and checked at CONNECT
    std::string sni_problem; // non-empty: the TLS SNI named another host
};

// One client connection (or the TLS inside one of its tunnels) as the request
// handling sees it: where it runs, its stream and read buffer, and the tunnel
// it is in, if any.
template <class Stream> struct ClientSession {
    ProxyRuntime& ctx;
    Worker& worker;
    Stream& stream;
    boost::beast::flat_buffer& buffer; // bytes read past the last request head
    ClientRegistration& registration;
    const TunnelTarget* tunnel; // null on the proxy-facing connection
    const ConnectionInfo& conn;
};

} // namespace osf::net
