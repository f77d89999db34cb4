#include "ca/certificate_authority.hpp"
#include "verify_support.hpp"

#include <catch2/catch.hpp>
#include <openssl/pem.h>

using osf::ca::CaOptions;
using osf::ca::CertificateAuthority;
using namespace osf::ca::test;

namespace {

std::unique_ptr<CertificateAuthority> make_ca(std::vector<std::string> names) {
    CaOptions options;
    options.permitted_names = std::move(names);
    return CertificateAuthority::create(options);
}

template <typename T> struct Freer {
    void (*free)(T*);
    void operator()(T* p) const { free(p); }
};

} // namespace

TEST_CASE("the CA certificate is a P-256, self-signed, constrained v3 CA", "[ca]") {
    auto ca = make_ca({"example.com", "api.linear.app"});
    X509* cert = ca->certificate();

    CHECK(X509_get_version(cert) == X509_VERSION_3);
    CHECK(X509_check_issued(cert, cert) == X509_V_OK);
    CHECK(X509_verify(cert, X509_get0_pubkey(cert)) == 1);
    CHECK(X509_get_signature_nid(cert) == NID_ecdsa_with_SHA256);
    char group[64] = {};
    REQUIRE(EVP_PKEY_get_group_name(X509_get0_pubkey(cert), group, sizeof group, nullptr) == 1);
    CHECK(std::string(group) == "prime256v1");

    CHECK(common_name(cert) == "osf egress-proxy CA");
    char org[64] = {};
    X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_organizationName, org, sizeof org);
    CHECK(std::string(org) == "osf egress-proxy");

    // Backdated an hour for clock skew; valid for a year.
    long started = seconds_from_now(X509_get0_notBefore(cert));
    CHECK(started <= -3600 + 60);
    CHECK(started >= -3600 - 60);
    CHECK(validity_seconds(cert) == osf::ca::backdate_seconds + osf::ca::ca_validity_seconds);

    int critical = 0;
    std::unique_ptr<BASIC_CONSTRAINTS, Freer<BASIC_CONSTRAINTS>> bc(
        static_cast<BASIC_CONSTRAINTS*>(
            X509_get_ext_d2i(cert, NID_basic_constraints, &critical, nullptr)),
        {BASIC_CONSTRAINTS_free});
    REQUIRE(bc);
    CHECK(critical == 1);
    CHECK(bc->ca != 0);
    REQUIRE(bc->pathlen != nullptr);
    CHECK(ASN1_INTEGER_get(bc->pathlen) == 0);

    CHECK(extension_is_critical(cert, NID_key_usage));
    CHECK(X509_get_key_usage(cert) == (KU_KEY_CERT_SIGN | KU_CRL_SIGN));
    CHECK(X509_get0_subject_key_id(cert) != nullptr);

    CHECK(extension_is_critical(cert, NID_name_constraints));
    std::unique_ptr<NAME_CONSTRAINTS, Freer<NAME_CONSTRAINTS>> nc(
        static_cast<NAME_CONSTRAINTS*>(
            X509_get_ext_d2i(cert, NID_name_constraints, &critical, nullptr)),
        {NAME_CONSTRAINTS_free});
    REQUIRE(nc);
    CHECK(nc->excludedSubtrees == nullptr);
    // Two DNS subtrees, and the two "no address" iPAddress subtrees.
    REQUIRE(sk_GENERAL_SUBTREE_num(nc->permittedSubtrees) == 4);
    CHECK(sk_GENERAL_SUBTREE_value(nc->permittedSubtrees, 0)->base->type == GEN_DNS);
    CHECK(sk_GENERAL_SUBTREE_value(nc->permittedSubtrees, 1)->base->type == GEN_DNS);
    GENERAL_NAME* v4 = sk_GENERAL_SUBTREE_value(nc->permittedSubtrees, 2)->base;
    GENERAL_NAME* v6 = sk_GENERAL_SUBTREE_value(nc->permittedSubtrees, 3)->base;
    REQUIRE(v4->type == GEN_IPADD);
    REQUIRE(v6->type == GEN_IPADD);
    CHECK(ASN1_STRING_length(v4->d.iPAddress) == 8);
    CHECK(ASN1_STRING_length(v6->d.iPAddress) == 32);
}

TEST_CASE("two CAs have different keys and serials", "[ca]") {
    auto a = make_ca({});
    auto b = make_ca({});
    CHECK(EVP_PKEY_eq(X509_get0_pubkey(a->certificate()), X509_get0_pubkey(b->certificate())) != 1);
    CHECK(ASN1_INTEGER_cmp(X509_get0_serialNumber(a->certificate()),
                           X509_get0_serialNumber(b->certificate())) != 0);
}

TEST_CASE("certificate_pem round-trips the CA certificate", "[ca]") {
    auto ca = make_ca({"example.com"});
    std::string pem = ca->certificate_pem();
    CHECK(pem.starts_with("-----BEGIN CERTIFICATE-----\n"));
    CHECK(pem.find("PRIVATE KEY") == std::string::npos);
    std::unique_ptr<BIO, Freer<BIO>> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())),
                                         {[](BIO* b) { BIO_free(b); }});
    osf::ca::X509Ptr parsed(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    REQUIRE(parsed);
    CHECK(X509_cmp(parsed.get(), ca->certificate()) == 0);
}

TEST_CASE("a leaf verifies against the CA for its host", "[ca]") {
    auto ca = make_ca({"api.linear.app", "githubusercontent.com"});
    for (const std::string host :
         {"api.linear.app", "raw.githubusercontent.com", "a.b.githubusercontent.com"}) {
        INFO(host);
        auto leaf = ca->mint_leaf(host);
        CHECK(verify_leaf(ca->certificate(), leaf.certificate.get(), host) == X509_V_OK);
        CHECK(verify_leaf(ca->certificate(), leaf.certificate.get(), "other." + host) ==
              X509_V_ERR_HOSTNAME_MISMATCH);
    }
}

TEST_CASE("a leaf has the fields TLS clients expect", "[ca]") {
    auto ca = make_ca({"example.com"});
    auto leaf = ca->mint_leaf("api.example.com");
    X509* cert = leaf.certificate.get();

    CHECK(X509_get_version(cert) == X509_VERSION_3);
    CHECK(X509_get_signature_nid(cert) == NID_ecdsa_with_SHA256);
    CHECK(common_name(cert) == "api.example.com");
    CHECK(X509_NAME_cmp(X509_get_issuer_name(cert), X509_get_subject_name(ca->certificate())) == 0);

    std::unique_ptr<GENERAL_NAMES, Freer<GENERAL_NAMES>> sans(
        static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr)),
        {GENERAL_NAMES_free});
    REQUIRE(sans);
    REQUIRE(sk_GENERAL_NAME_num(sans.get()) == 1);
    GENERAL_NAME* san = sk_GENERAL_NAME_value(sans.get(), 0);
    REQUIRE(san->type == GEN_DNS);
    CHECK(std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(san->d.dNSName)),
                      static_cast<std::size_t>(ASN1_STRING_length(san->d.dNSName))) ==
          "api.example.com");

    CHECK(extension_is_critical(cert, NID_basic_constraints));
    CHECK(X509_check_ca(cert) == 0);
    CHECK(extension_is_critical(cert, NID_key_usage));
    CHECK(X509_get_key_usage(cert) == KU_DIGITAL_SIGNATURE);
    CHECK(X509_get_extended_key_usage(cert) == XKU_SSL_SERVER);
    REQUIRE(X509_get0_authority_key_id(cert) != nullptr);
    CHECK(ASN1_OCTET_STRING_cmp(X509_get0_authority_key_id(cert),
                                X509_get0_subject_key_id(ca->certificate())) == 0);

    // Backdated an hour; valid 30 days, far under the 200-day maximum clients enforce.
    long started = seconds_from_now(X509_get0_notBefore(cert));
    CHECK(started <= -3600 + 60);
    CHECK(started >= -3600 - 60);
    CHECK(validity_seconds(cert) == osf::ca::backdate_seconds + osf::ca::leaf_validity_seconds);
    CHECK(validity_seconds(cert) < 200L * 86400);
    CHECK(leaf.not_after - leaf.not_before == validity_seconds(cert));
    CHECK(seconds_from_now(X509_get0_notAfter(cert)) ==
          Approx(leaf.not_after - std::time(nullptr)).margin(60));
}

TEST_CASE("every leaf shares one P-256 key and has its own serial", "[ca]") {
    auto ca = make_ca({});
    auto a = ca->mint_leaf("a.example");
    auto b = ca->mint_leaf("b.example");
    CHECK(a.key.get() == b.key.get());
    CHECK(EVP_PKEY_eq(X509_get0_pubkey(a.certificate.get()), a.key.get()) == 1);
    CHECK(EVP_PKEY_eq(X509_get0_pubkey(b.certificate.get()), a.key.get()) == 1);
    CHECK(X509_check_private_key(a.certificate.get(), a.key.get()) == 1);
    CHECK(EVP_PKEY_eq(a.key.get(), X509_get0_pubkey(ca->certificate())) != 1);
    char group[64] = {};
    REQUIRE(EVP_PKEY_get_group_name(a.key.get(), group, sizeof group, nullptr) == 1);
    CHECK(std::string(group) == "prime256v1");
    CHECK(ASN1_INTEGER_cmp(X509_get0_serialNumber(a.certificate.get()),
                           X509_get0_serialNumber(b.certificate.get())) != 0);
}

TEST_CASE("name constraints stop leaves for other names", "[ca]") {
    auto ca = make_ca({"example.com", "api.linear.app"});
    for (const std::string host :
         {"evil.com", "example.org", "notexample.com", "linear.app", "other.linear.app"}) {
        INFO(host);
        auto leaf = ca->mint_leaf(host);
        CHECK(verify_leaf(ca->certificate(), leaf.certificate.get(), host) ==
              X509_V_ERR_PERMITTED_VIOLATION);
    }
    auto leaf = ca->mint_leaf("deep.sub.example.com");
    CHECK(verify_leaf(ca->certificate(), leaf.certificate.get(), "deep.sub.example.com") ==
          X509_V_OK);
}

TEST_CASE("with no IP literal permitted, the CA mints for no IP at all", "[ca]") {
    // (Only 0.0.0.0 and ::, the placeholders permitted, would pass: no server has them.)
    auto ca = make_ca({"example.com"});
    for (const std::string ip : {"10.1.2.3", "127.0.0.1", "8.8.8.8", "2001:db8::5", "::1"}) {
        INFO(ip);
        auto leaf = ca->mint_leaf(ip);
        CHECK(verify_leaf(ca->certificate(), leaf.certificate.get(), ip) ==
              X509_V_ERR_PERMITTED_VIOLATION);
    }
}

TEST_CASE("IP literals in the permitted names allow exactly those addresses", "[ca]") {
    auto ca = make_ca({"10.1.2.3", "2001:db8::5"});
    for (const std::string ip : {"10.1.2.3", "2001:db8::5"}) {
        INFO(ip);
        auto leaf = ca->mint_leaf(ip);
        CHECK(verify_leaf(ca->certificate(), leaf.certificate.get(), ip) == X509_V_OK);
    }
    for (const std::string ip : {"10.1.2.4", "2001:db8::6"}) {
        INFO(ip);
        auto leaf = ca->mint_leaf(ip);
        CHECK(verify_leaf(ca->certificate(), leaf.certificate.get(), ip) ==
              X509_V_ERR_PERMITTED_VIOLATION);
    }
}

TEST_CASE("a bracketed IPv6 host gets an iPAddress SAN", "[ca]") {
    auto ca = make_ca({"2001:db8::5"});
    auto leaf = ca->mint_leaf("[2001:db8::5]");
    CHECK(verify_leaf(ca->certificate(), leaf.certificate.get(), "2001:db8::5") == X509_V_OK);
}

TEST_CASE("an IP leaf verifies when DNS names are permitted too", "[ca]") {
    auto ca = make_ca({"example.com", "10.1.2.3"});
    auto leaf = ca->mint_leaf("10.1.2.3");
    CHECK(verify_leaf(ca->certificate(), leaf.certificate.get(), "10.1.2.3") == X509_V_OK);
    // An IP leaf's subject is empty, so its SAN is critical (RFC 5280 4.2.1.6).
    CHECK(X509_NAME_entry_count(X509_get_subject_name(leaf.certificate.get())) == 0);
    CHECK(extension_is_critical(leaf.certificate.get(), NID_subject_alt_name));
    auto other = ca->mint_leaf("10.1.2.4");
    CHECK(verify_leaf(ca->certificate(), other.certificate.get(), "10.1.2.4") ==
          X509_V_ERR_PERMITTED_VIOLATION);
    auto name_leaf = ca->mint_leaf("www.example.com");
    CHECK(verify_leaf(ca->certificate(), name_leaf.certificate.get(), "www.example.com") ==
          X509_V_OK);
}

TEST_CASE("without permitted names the CA is unconstrained", "[ca]") {
    auto ca = make_ca({});
    CHECK(X509_get_ext_by_NID(ca->certificate(), NID_name_constraints, -1) < 0);
    for (const std::string host : {"anything.test", "10.0.0.1", "2001:db8::1"}) {
        INFO(host);
        auto leaf = ca->mint_leaf(host);
        CHECK(verify_leaf(ca->certificate(), leaf.certificate.get(), host) == X509_V_OK);
    }
}

TEST_CASE("a long host keeps its full SAN and a 64-character CN", "[ca]") {
    auto ca = make_ca({"example.com"});
    std::string host = std::string(60, 'a') + "." + std::string(30, 'b') + ".example.com";
    auto leaf = ca->mint_leaf(host);
    CHECK(common_name(leaf.certificate.get()) == host.substr(0, 64));
    CHECK(verify_leaf(ca->certificate(), leaf.certificate.get(), host) == X509_V_OK);
}
