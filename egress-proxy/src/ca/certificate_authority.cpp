// The proxy's CA. Keys are made here and held only in this process's memory;
// nothing in this file writes a key anywhere.
#include "ca/certificate_authority.hpp"

#include "ca/name_constraints.hpp"
#include "ca/openssl_support.hpp"

#include <ctime>
#include <openssl/pem.h>

namespace osf::ca {

using detail::throw_openssl_error;

namespace {

// The Subject's commonName is at most 64 characters (RFC 5280 ub-common-name).
constexpr std::size_t max_common_name = 64;
constexpr const char* organization = "osf egress-proxy";

PKeyPtr make_p256_key() {
    PKeyPtr key(EVP_EC_gen("P-256"));
    if (!key) throw_openssl_error("P-256 key generation");
    return key;
}

void add_name_entry(X509_NAME* name, const char* field, std::string_view value) {
    if (!X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8,
                                    reinterpret_cast<const unsigned char*>(value.data()),
                                    static_cast<int>(value.size()), -1, 0))
        throw_openssl_error(std::string("subject ") + field);
}

std::int64_t now_seconds() {
    return static_cast<std::int64_t>(std::time(nullptr));
}

} // namespace

struct CertificateAuthority::State {
    PKeyPtr key;
    X509Ptr certificate;
    std::shared_ptr<EVP_PKEY> leaf_key;
};

CertificateAuthority::CertificateAuthority() : state_(std::make_unique<State>()) {}
CertificateAuthority::~CertificateAuthority() = default;

std::unique_ptr<CertificateAuthority> CertificateAuthority::create(const CaOptions& options) {
    std::unique_ptr<CertificateAuthority> ca(new CertificateAuthority());
    State& s = *ca->state_;
    s.key = make_p256_key();
    s.leaf_key = std::shared_ptr<EVP_PKEY>(make_p256_key().release(), EVP_PKEY_free);

    s.certificate.reset(X509_new());
    X509* cert = s.certificate.get();
    if (!cert || !X509_set_version(cert, X509_VERSION_3)) throw_openssl_error("X509_new");
    detail::set_random_serial(cert);
    X509_NAME* subject = X509_get_subject_name(cert);
    add_name_entry(subject, "CN", std::string_view(options.common_name).substr(0, max_common_name));
    add_name_entry(subject, "O", organization);
    if (!X509_set_issuer_name(cert, subject)) throw_openssl_error("issuer");
    detail::set_validity(cert, now_seconds(), backdate_seconds, ca_validity_seconds);
    if (!X509_set_pubkey(cert, s.key.get())) throw_openssl_error("X509_set_pubkey");

    // pathlen:0: this CA signs leaves only, never another CA.
    detail::add_extension(cert, cert, NID_basic_constraints, "critical,CA:TRUE,pathlen:0");
    detail::add_extension(cert, cert, NID_key_usage, "critical,keyCertSign,cRLSign");
    detail::add_extension(cert, cert, NID_subject_key_identifier, "hash");
    if (!options.permitted_names.empty())
        detail::add_name_constraints(cert, options.permitted_names);

    if (X509_sign(cert, s.key.get(), EVP_sha256()) <= 0) throw_openssl_error("signing the CA");
    s.certificate = detail::with_cached_encoding(cert); // sent in every handshake's chain
    // Fill OpenSSL's extension cache now, so concurrent mint_leaf calls only read it.
    X509_check_purpose(s.certificate.get(), -1, 0);
    return ca;
}

std::string CertificateAuthority::certificate_pem() const {
    detail::BioPtr bio(BIO_new(BIO_s_mem()));
    if (!bio || !PEM_write_bio_X509(bio.get(), state_->certificate.get()))
        throw_openssl_error("PEM_write_bio_X509");
    char* data = nullptr;
    long length = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<std::size_t>(length));
}

X509* CertificateAuthority::certificate() const {
    return state_->certificate.get();
}

Leaf CertificateAuthority::mint_leaf(std::string_view host) const {
    // Callers pass canonical hosts; brackets are dropped in case one does not.
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    const std::string name(host);
    const std::int64_t now = now_seconds();
    X509* issuer = state_->certificate.get();

    X509Ptr certificate(X509_new());
    X509* cert = certificate.get();
    if (!cert || !X509_set_version(cert, X509_VERSION_3)) throw_openssl_error("X509_new");
    detail::set_random_serial(cert);
    // The SAN list owns the name from here on, whatever throws later.
    detail::GeneralNamesPtr names(GENERAL_NAMES_new());
    if (!names) throw_openssl_error("GENERAL_NAMES_new");
    GENERAL_NAME* san = detail::make_general_name(name);
    if (!sk_GENERAL_NAME_push(names.get(), san)) {
        GENERAL_NAME_free(san);
        throw_openssl_error("subjectAltName");
    }
    const bool is_address = san->type == GEN_IPADD;
    // CN = the host for DNS names. An IP leaf gets an empty subject (and a
    // critical SAN, as RFC 5280 then requires): OpenSSL checks a dotted CN
    // against the CA's DNS name constraints when a leaf has no DNS SAN, so
    // "CN=10.1.2.3" would fail under a CA that permits that address.
    if (!is_address)
        add_name_entry(X509_get_subject_name(cert), "CN",
                       std::string_view(name).substr(0, max_common_name));
    if (!X509_set_issuer_name(cert, X509_get_subject_name(issuer))) throw_openssl_error("issuer");
    detail::set_validity(cert, now, backdate_seconds, leaf_validity_seconds);
    if (!X509_set_pubkey(cert, state_->leaf_key.get())) throw_openssl_error("X509_set_pubkey");

    detail::add_extension(cert, issuer, NID_basic_constraints, "critical,CA:FALSE");
    // digitalSignature only: ECDHE with an EC key needs no keyEncipherment.
    detail::add_extension(cert, issuer, NID_key_usage, "critical,digitalSignature");
    detail::add_extension(cert, issuer, NID_ext_key_usage, "serverAuth");
    detail::add_extension(cert, issuer, NID_subject_key_identifier, "hash");
    detail::add_extension(cert, issuer, NID_authority_key_identifier, "keyid:always");

    if (!X509_add1_ext_i2d(cert, NID_subject_alt_name, names.get(), is_address ? 1 : 0,
                           X509V3_ADD_DEFAULT))
        throw_openssl_error("subjectAltName");

    if (X509_sign(cert, state_->key.get(), EVP_sha256()) <= 0)
        throw_openssl_error("signing a leaf");

    Leaf leaf;
    leaf.certificate = detail::with_cached_encoding(cert);
    leaf.key = state_->leaf_key;
    leaf.not_before = now - backdate_seconds;
    leaf.not_after = now + leaf_validity_seconds;
    return leaf;
}

} // namespace osf::ca
