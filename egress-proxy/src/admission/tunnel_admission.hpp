// SOCKS5 CONNECT admission: whether the proxy opens a tunnel to the host and
// port a SOCKS5 request names, and of which kind, decided before any lookup.
// A `tcp` destination is relayed raw; an `egress` or MCP destination is served
// as after an HTTP CONNECT (intercepted); anything else is refused. Pure.
#pragma once

#include "admission/request_admission.hpp"
#include "policy/policy.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace osf::admission {

struct TunnelAdmission {
    Destination logged;                   // scheme "tcp" when raw or refused
    std::optional<RefusalReason> refusal; // set: refused
    std::string detail;                   // with a refusal: why, no secrets
    bool raw = false;                     // admitted: a `tcp` destination
    std::string host;                     // admitted: canonical
    std::uint16_t port = 0;
};

TunnelAdmission admit_socks_connect(const policy::Policy& destinations, std::string_view host,
                                    std::uint16_t port);

} // namespace osf::admission
