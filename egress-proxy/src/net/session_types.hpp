// Plain data shared by the session stages.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace osf::net {

struct ConnectionInfo {
    std::uint64_t id = 0;
    std::string client; // "ip:port" of the sandbox side
};

// The destination a CONNECT tunnel was opened to, checked by the policy.
struct TunnelTarget {
    std::string host; // canonical
    std::uint16_t port = 0;
    bool tls = true; // intercepted TLS inside: the upstream leg is TLS too
    std::vector<boost::asio::ip::tcp::endpoint> endpoints; // resolved and checked at CONNECT
    std::string sni_problem; // non-empty: the TLS SNI named another host
};

} // namespace osf::net
