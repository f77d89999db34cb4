// The client-facing TLS contexts that present a minted leaf (the upstream
// context is configuration: config/upstream_tls.hpp).
#pragma once

#include "ca/certificate_authority.hpp"

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <string>

namespace osf::net {

// Client-facing: TLS 1.2+, the leaf and the CA as its chain. ALPN: h2 when
// `http2` and the client offers it, else http/1.1 (a client offering neither
// gets no ALPN and falls back or fails).
std::shared_ptr<boost::asio::ssl::context> make_leaf_context(const ca::Leaf& leaf, X509* ca_cert,
                                                             bool http2);

} // namespace osf::net
