#include "config/upstream_tls.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <string>

using namespace osf::config;

namespace {

// A self-signed certificate in a PEM file of its own, as --upstream-ca names one.
std::string write_test_ca(const std::filesystem::path& path) {
    EVP_PKEY* key = EVP_EC_gen("P-256");
    X509* cert = X509_new();
    X509_set_version(cert, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), 0);
    X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
    X509_NAME_add_entry_by_txt(X509_get_subject_name(cert), "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("upstream tls test"), -1, -1,
                               0);
    X509_set_issuer_name(cert, X509_get_subject_name(cert));
    X509_set_pubkey(cert, key);
    X509_sign(cert, key, EVP_sha256());
    FILE* file = std::fopen(path.c_str(), "w");
    REQUIRE(file != nullptr);
    PEM_write_X509(file, cert);
    std::fclose(file);
    X509_free(cert);
    EVP_PKEY_free(key);
    return path.string();
}

int certificates_in(boost::asio::ssl::context& context) {
    return sk_X509_OBJECT_num(
        X509_STORE_get0_objects(SSL_CTX_get_cert_store(context.native_handle())));
}

} // namespace

TEST_CASE("upstream TLS: the system store is loaded by the time a handshake may start") {
    auto context = make_upstream_tls("");
    CHECK(wait_for_upstream_trust(*context));
    CHECK(wait_for_upstream_trust(*context)); // again: at once, the same answer
    // OpenSSL's default bundle (Debian's ca-certificates) where it exists.
    if (std::filesystem::exists(X509_get_default_cert_file())) CHECK(certificates_in(*context) > 0);
}

TEST_CASE("upstream TLS: the extra bundle is in the store as soon as the context is made") {
    const auto path = std::filesystem::temp_directory_path() / "osf-upstream-tls-test-ca.pem";
    auto context = make_upstream_tls(write_test_ca(path));
    std::filesystem::remove(path);
    CHECK(certificates_in(*context) >= 1);
    CHECK(wait_for_upstream_trust(*context));
}

TEST_CASE("upstream TLS: a context dropped while its store loads waits for the load, and one "
          "made elsewhere has nothing to wait for") {
    for (int i = 0; i < 5; ++i)
        make_upstream_tls("").reset();
    boost::asio::ssl::context other(boost::asio::ssl::context::tls_client);
    CHECK(wait_for_upstream_trust(other));
}
