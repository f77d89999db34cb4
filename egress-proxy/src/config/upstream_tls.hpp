// The TLS settings for upstream connections: one context, built with the
// configuration and shared by every upstream connection.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <string>

namespace osf::config {

// TLS 1.2+, verify peer against the system store plus `extra_bundle` (a PEM
// file; empty: none), ALPN http/1.1. Hostname and SNI are set per connection
// (net/upstream.cpp). Throws boost::system::system_error when the bundle
// cannot be loaded. The system store is loaded on a thread of its own while
// the proxy starts listening: wait_for_upstream_trust before a handshake.
std::shared_ptr<boost::asio::ssl::context> make_upstream_tls(const std::string& extra_bundle);

// Returns once the system store of a context from make_upstream_tls is loaded
// (at once after the first time; a context made otherwise has nothing to
// wait for). False when loading it failed: the store then holds only the
// extra bundle, and handshakes with other origins fail their verification.
bool wait_for_upstream_trust(boost::asio::ssl::context& context);

} // namespace osf::config
