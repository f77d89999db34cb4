// A raw TCP tunnel to a `tcp` destination: the upstream connection (to an
// address already resolved and checked), then bytes relayed both ways as they
// come, never read as a protocol. One log line when the tunnel ends.
#pragma once

#include "net/exchange.hpp"
#include "net/proxy_runtime.hpp"
#include "net/worker.hpp"
#include "osf/log_fields.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <optional>
#include <string>
#include <vector>

namespace osf::net {

struct RawUpstream {
    std::optional<boost::asio::ip::tcp::socket> socket; // set when connected
    std::optional<ErrorKind> error;                     // upstream_connect, upstream_timeout
    std::string detail; // for diagnostics and the refusal's text, no secrets
};

// Connects to the first of `endpoints` that answers, within --upstream-timeout.
boost::asio::awaitable<RawUpstream>
dial_raw(ProxyRuntime& ctx, const std::string& host, std::uint16_t port,
         const std::vector<boost::asio::ip::tcp::endpoint>& endpoints);

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
