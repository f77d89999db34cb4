// TLS settings for both legs: the client-facing contexts that present a
// minted leaf, and the one upstream context that verifies real servers.
#pragma once

#include "ca/certificate_authority.hpp"

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <string>

namespace osf::net {

// Client-facing: TLS 1.2+, the leaf and the CA as its chain, ALPN http/1.1
// only (a client offering only h2 gets no ALPN and falls back or fails).
std::shared_ptr<boost::asio::ssl::context> make_leaf_context(const ca::Leaf& leaf, X509* ca_cert);

// Upstream: TLS 1.2+, verify peer against the system store plus `extra_bundle`.
// Hostname and SNI are set per connection (see upstream.cpp).
boost::asio::ssl::context make_upstream_context(const std::string& extra_bundle);

} // namespace osf::net
