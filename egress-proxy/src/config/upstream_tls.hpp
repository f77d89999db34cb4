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
// cannot be loaded.
std::shared_ptr<boost::asio::ssl::context> make_upstream_tls(const std::string& extra_bundle);

} // namespace osf::config
