#include "admission/tunnel_admission.hpp"

#include "hosts/host.hpp"
#include "osf/host_port.hpp"

namespace osf::admission {

TunnelAdmission admit_socks_connect(const policy::Policy& destinations, std::string_view raw_host,
                                    std::uint16_t port) {
    TunnelAdmission a;
    const auto host = hosts::canonical_host(raw_host);
    a.logged.scheme = "tcp";
    a.logged.host = host ? *host : std::string(raw_host);
    a.logged.port = port;
    if (!host) {
        a.refusal = RefusalReason::bad_host;
        a.detail = "not a valid host name or address";
        return a;
    }
    if (port == 0) {
        a.refusal = RefusalReason::tcp_destination_not_allowed;
        a.detail = "port 0 is not allowed";
        return a;
    }
    const bool raw = destinations.is_tcp_destination(*host, port);
    // What an HTTP CONNECT may reach, a SOCKS5 client may too, served the same way.
    if (raw || destinations.check_destination(*host, port).allowed) {
        a.raw = raw;
        if (!raw) a.logged.scheme = "https";
        a.host = *host;
        a.port = port;
        return a;
    }
    a.refusal = RefusalReason::tcp_destination_not_allowed;
    a.detail = osf::host_port(*host, port) + " is in neither the tcp nor the egress list";
    return a;
}

} // namespace osf::admission
