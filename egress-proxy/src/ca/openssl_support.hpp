// Small RAII and error helpers over OpenSSL's C API, for the CA's own use.
#pragma once

#include "osf/openssl_ptr.hpp"

#include <cstdint>
#include <memory>
#include <openssl/bio.h>
#include <openssl/x509v3.h>
#include <string>
#include <string_view>

namespace osf::ca::detail {

using BioPtr = OpenSslPtr<BIO, BIO_free>;
using GeneralNamesPtr = OpenSslPtr<GENERAL_NAMES, GENERAL_NAMES_free>;
using NameConstraintsPtr = OpenSslPtr<NAME_CONSTRAINTS, NAME_CONSTRAINTS_free>;

// Throws std::runtime_error naming `what` and OpenSSL's queued errors, and
// clears the queue so that it does not leak into an unrelated later call.
[[noreturn]] void throw_openssl_error(std::string_view what);

// A GENERAL_NAME for `name`: iPAddress when it is an IP literal, else dNSName.
GENERAL_NAME* make_general_name(const std::string& name);

// A positive random serial of up to 128 bits (RFC 5280: at most 20 octets;
// CA/B Forum: at least 64 random bits).
void set_random_serial(X509* certificate);

// notBefore = now - backdate, notAfter = now + validity.
void set_validity(X509* certificate, std::int64_t now, std::int64_t backdate,
                  std::int64_t validity);

// Adds an extension from OpenSSL's config syntax ("critical,CA:TRUE"). Only
// for fixed strings: names go in through the typed builders above.
void add_extension(X509* certificate, X509* issuer, int nid, const char* value);

// The same certificate, parsed back from its DER. A certificate built in
// memory is re-encoded by every i2d_X509, so every TLS handshake that sends
// it would encode it again; a parsed one keeps its encoding.
OpenSslPtr<X509, X509_free> with_cached_encoding(const X509* certificate);

} // namespace osf::ca::detail
