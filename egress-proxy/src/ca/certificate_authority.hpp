// The proxy's own certificate authority: a key pair made at start, held only
// in memory, and leaf certificates minted per host on first use.
#pragma once

#include "osf/openssl_ptr.hpp"

#include <cstdint>
#include <memory>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <string>
#include <string_view>
#include <vector>

namespace osf::ca {

using X509Ptr = OpenSslPtr<X509, X509_free>;
using PKeyPtr = OpenSslPtr<EVP_PKEY, EVP_PKEY_free>;

// Certificates start an hour in the past: a client whose clock runs a little
// behind the proxy's must not see a certificate that is "not yet valid".
inline constexpr std::int64_t backdate_seconds = 60 * 60;
// The CA lives only as long as the process (a new one at every start); a year
// is far longer than any proxy runs, and short enough that a leaked CA
// certificate stops being trusted by itself.
inline constexpr std::int64_t ca_validity_seconds = 365 * 24 * 60 * 60;
// Leaves: 30 days, well under the 200-day maximum the CA/Browser Forum sets
// for TLS leaves from March 2026 (and Apple's 825 days for user-added roots),
// so no client that enforces a maximum rejects them. LeafCache re-mints them
// after half their validity, long before they expire.
inline constexpr std::int64_t leaf_validity_seconds = 30 * 24 * 60 * 60;

// A minted leaf: its certificate and the (shared) leaf key.
struct Leaf {
    X509Ptr certificate;
    std::shared_ptr<EVP_PKEY> key; // shared by every leaf
    std::int64_t not_after = 0;    // seconds since the epoch
    std::int64_t not_before = 0;   // seconds since the epoch (backdated)
};

struct CaOptions {
    // DNS names (and IP literals) the CA may issue for; empty means no name
    // constraints. A name permits itself and its subdomains (RFC 5280). When
    // names are given but no IP literal, the CA may issue for no IP at all.
    std::vector<std::string> permitted_names;
    std::string common_name = "osf egress-proxy CA";
};

class CertificateAuthority {
public:
    // Makes a new key pair (P-256) and a self-signed CA certificate. Throws
    // std::runtime_error on an OpenSSL failure.
    static std::unique_ptr<CertificateAuthority> create(const CaOptions& options);
    ~CertificateAuthority();

    // The CA certificate in PEM, for <state-dir>/ca.crt and clients.
    std::string certificate_pem() const;
    X509* certificate() const;

    // Mints a leaf for `host` (a DNS name or IP literal; SAN = host), signed by
    // this CA. Not cached: see LeafCache.
    Leaf mint_leaf(std::string_view host) const;

private:
    CertificateAuthority();
    struct State;
    std::unique_ptr<State> state_;
};

} // namespace osf::ca
