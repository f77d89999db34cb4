// CONNECT admission: whether the proxy opens a tunnel to the authority a
// CONNECT names, decided from the request target alone, before any lookup.
// Pure, like admit(): the I/O code answers the refusal, or resolves the host
// (whose addresses the policy checks in turn) and opens the tunnel.
#pragma once

#include "admission/request_admission.hpp"
#include "policy/policy.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace osf::admission {

struct ConnectAdmission {
    Destination logged;             // what the CONNECT's line says (scheme https, no path)
    std::optional<Refusal> refusal; // set: answered by the proxy
    std::string host;               // admitted: canonical
    std::uint16_t port = 0;
    bool raw = false; // admitted: a `tcp` destination, relayed byte for byte (never intercepted)
};

// `authority` is the CONNECT's request target ("host:port"; 443 when the
// port is left out).
ConnectAdmission admit_connect(const policy::Policy& destinations, std::string_view authority);

} // namespace osf::admission
