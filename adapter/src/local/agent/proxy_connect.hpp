// `sandbox-local __connect HOST PORT`, run inside a local sandbox as ssh's
// ProxyCommand (ssh_client_config.hpp): an HTTP CONNECT to HOST:PORT through
// the sandbox's proxy port (127.0.0.1:8080), then standard input and output
// relayed to the tunnel byte for byte. The proxy decides: a destination not in
// the spec's `tcp` list is refused there, and this prints why. Shipped with
// the product so that no netcat has to be in the sandbox's root.
#pragma once

namespace osf::local::agent {

// 0 once the tunnel has ended; 1 when the proxy cannot be reached or refuses;
// 2 for a host or port that cannot be a target.
int run_proxy_connect(const char* host, const char* port);

} // namespace osf::local::agent
