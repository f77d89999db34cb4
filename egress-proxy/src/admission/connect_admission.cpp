#include "admission/connect_admission.hpp"

#include "hosts/host.hpp"

namespace osf::admission {

namespace http = boost::beast::http;

ConnectAdmission admit_connect(const policy::Policy& destinations, std::string_view authority) {
    ConnectAdmission a;
    const auto hp = hosts::split_host_port(authority, 443);
    const auto host = hp ? hosts::canonical_host(hp->host) : std::nullopt;
    a.logged.host = host ? *host : (hp ? hp->host : std::string(authority));
    a.logged.port = hp ? hp->port : 0;
    // A CONNECT carries no body the proxy would leave unread, but its client
    // connection ends with the refusal (the tunnel was the connection's purpose).
    if (!hp || !host) {
        a.refusal = Refusal{http::status::forbidden, RefusalReason::bad_host,
                            "not a valid host:port", true};
        return a;
    }
    // A `tcp` entry wins over `egress`: the tunnel the spec asked to be raw stays raw.
    if (destinations.is_tcp_destination(*host, hp->port)) {
        a.raw = true;
        a.host = *host;
        a.port = hp->port;
        return a;
    }
    const auto decision = destinations.check_destination(*host, hp->port);
    if (!decision.allowed) {
        a.refusal = Refusal{http::status::forbidden, *decision.refused_by, decision.detail, true};
        return a;
    }
    a.host = *host;
    a.port = hp->port;
    return a;
}

} // namespace osf::admission
