// Test helpers: verify certificates the way a TLS client would, with
// OpenSSL's own verifier, and read fields back out of them.
#pragma once

#include <memory>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#include <string>

namespace osf::ca::test {

// X509_V_OK when `leaf` chains to `ca` for `host` (a DNS name or IP literal)
// as a TLS server certificate, else OpenSSL's verification error.
inline int verify_leaf(X509* ca, X509* leaf, const std::string& host) {
    std::unique_ptr<X509_STORE, decltype(&X509_STORE_free)> store(X509_STORE_new(),
                                                                  X509_STORE_free);
    std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)> context(X509_STORE_CTX_new(),
                                                                            X509_STORE_CTX_free);
    if (!store || !context || !X509_STORE_add_cert(store.get(), ca) ||
        !X509_STORE_CTX_init(context.get(), store.get(), leaf, nullptr))
        return -1;
    X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(context.get());
    X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_SSL_SERVER);
    if (!X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str()))
        X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size());
    if (X509_verify_cert(context.get()) == 1) return X509_V_OK;
    return X509_STORE_CTX_get_error(context.get());
}

// Seconds from notBefore to notAfter.
inline long validity_seconds(X509* certificate) {
    int days = 0;
    int seconds = 0;
    ASN1_TIME_diff(&days, &seconds, X509_get0_notBefore(certificate),
                   X509_get0_notAfter(certificate));
    return static_cast<long>(days) * 86400 + seconds;
}

// Seconds from now to `time` (negative in the past).
inline long seconds_from_now(const ASN1_TIME* time) {
    int days = 0;
    int seconds = 0;
    ASN1_TIME_diff(&days, &seconds, nullptr, time);
    return static_cast<long>(days) * 86400 + seconds;
}

inline bool extension_is_critical(X509* certificate, int nid) {
    int index = X509_get_ext_by_NID(certificate, nid, -1);
    return index >= 0 && X509_EXTENSION_get_critical(X509_get_ext(certificate, index)) == 1;
}

inline std::string common_name(X509* certificate) {
    char buffer[256] = {};
    int n = X509_NAME_get_text_by_NID(X509_get_subject_name(certificate), NID_commonName, buffer,
                                      sizeof buffer);
    return n < 0 ? std::string() : std::string(buffer, static_cast<std::size_t>(n));
}

} // namespace osf::ca::test
