// The CA certificate's nameConstraints extension (RFC 5280 4.2.1.10).
#pragma once

#include <openssl/x509.h>
#include <string>
#include <vector>

namespace osf::ca::detail {

// Adds a critical nameConstraints extension permitting only `names`: a dNSName
// subtree per DNS name (the name and its subdomains) and an iPAddress subtree
// per IP literal (that one address). RFC 5280 leaves a name type unconstrained
// when no subtree of its type is listed, so without any IP literal the
// extension permits 0.0.0.0/32 and ::/128, which no real server has: the CA
// can then mint for no IP address at all.
void add_name_constraints(X509* certificate, const std::vector<std::string>& names);

} // namespace osf::ca::detail
