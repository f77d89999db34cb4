// A raw TCP tunnel to a `tcp` destination: the upstream connection (to an
// address already resolved and checked), then bytes relayed both ways as they
// come, never read as a protocol. One log line when the tunnel ends.
#pragma once

#include "net/exchange.hpp"
#include "net/proxy_runtime.hpp"
#include "net/session_types.hpp"
#include "net/worker.hpp"
#include "osf/log_fields.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <optional>
#include <string>
#include <vector>

namespace osf::net {

// A tunnel's destination reached, before the client is told: the name resolved
// by the proxy and its addresses checked, and for a raw tunnel the upstream
// connected (an intercepted tunnel connects per request inside it). On failure
// exactly one of `error` and `refused_by` is set; each way in (HTTP CONNECT,
// SOCKS5) answers it in its own terms.
struct ReachedTunnel {
    TunnelTarget target;
    std::optional<boost::asio::ip::tcp::socket> raw; // a raw tunnel's upstream, connected
    std::optional<ErrorKind> error;                  // dns, upstream_connect, upstream_timeout
    std::optional<RefusalReason> refused_by;         // every address refused (destination-address)
    std::string detail;                              // for diagnostics and the answer, no secrets
};

// `host` is admitted and canonical; `raw`: a `tcp` destination, dialled now.
// The lookup and the connect each have --upstream-timeout.
boost::asio::awaitable<ReachedTunnel> reach_tunnel(ProxyRuntime& ctx, std::string host,
                                                   std::uint16_t port, bool raw);

// Relays bytes between `client` and `upstream` until both directions have
// ended (each side's end of stream is passed on to the other), a side fails,
// nothing moves either way for --idle-timeout, or a policy change revokes the
// destination. `early`: bytes the client sent before the tunnel opened, sent
// first. Finishes `ex` (status `status`): allowed, or an error saying how the
// tunnel was cut (policy-revoked, idle-timeout, upstream-reset, client-closed).
boost::asio::awaitable<void> relay_raw(ProxyRuntime& ctx, ClientRegistration& registration,
                                       boost::asio::ip::tcp::socket& client,
                                       boost::asio::ip::tcp::socket& upstream,
                                       boost::beast::flat_buffer& early, Exchange& ex, int status);

} // namespace osf::net
