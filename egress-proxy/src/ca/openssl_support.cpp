#include "ca/openssl_support.hpp"

#include <openssl/bn.h>
#include <openssl/err.h>
#include <stdexcept>

namespace osf::ca::detail {

void throw_openssl_error(std::string_view what) {
    std::string message = "certificate authority: " + std::string(what);
    while (unsigned long code = ERR_get_error()) {
        char text[256];
        ERR_error_string_n(code, text, sizeof text);
        message += "; ";
        message += text;
    }
    ERR_clear_error();
    throw std::runtime_error(message);
}

GENERAL_NAME* make_general_name(const std::string& name) {
    GENERAL_NAME* general = GENERAL_NAME_new();
    if (!general) throw_openssl_error("GENERAL_NAME_new");
    // a2i_IPADDRESS accepts dotted-quad IPv4 and IPv6; anything else is a DNS name.
    if (ASN1_OCTET_STRING* ip = a2i_IPADDRESS(name.c_str())) {
        GENERAL_NAME_set0_value(general, GEN_IPADD, ip);
        return general;
    }
    ERR_clear_error(); // a2i_IPADDRESS queues an error for a non-address
    ASN1_IA5STRING* dns = ASN1_IA5STRING_new();
    if (!dns || !ASN1_STRING_set(dns, name.data(), static_cast<int>(name.size()))) {
        ASN1_IA5STRING_free(dns);
        GENERAL_NAME_free(general);
        throw_openssl_error("dNSName");
    }
    GENERAL_NAME_set0_value(general, GEN_DNS, dns);
    return general;
}

void set_random_serial(X509* certificate) {
    OpenSslPtr<BIGNUM, BN_free> serial(BN_new());
    if (!serial) throw_openssl_error("BN_new");
    do {
        if (!BN_rand(serial.get(), 128, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY))
            throw_openssl_error("BN_rand");
    } while (BN_is_zero(serial.get()));
    ASN1_INTEGER* integer = BN_to_ASN1_INTEGER(serial.get(), nullptr);
    if (!integer) throw_openssl_error("BN_to_ASN1_INTEGER");
    int ok = X509_set_serialNumber(certificate, integer);
    ASN1_INTEGER_free(integer);
    if (!ok) throw_openssl_error("X509_set_serialNumber");
}

void set_validity(X509* certificate, std::int64_t now, std::int64_t backdate,
                  std::int64_t validity) {
    auto at = static_cast<time_t>(now);
    if (!X509_time_adj_ex(X509_getm_notBefore(certificate), 0, static_cast<long>(-backdate), &at) ||
        !X509_time_adj_ex(X509_getm_notAfter(certificate), 0, static_cast<long>(validity), &at))
        throw_openssl_error("validity");
}

void add_extension(X509* certificate, X509* issuer, int nid, const char* value) {
    X509V3_CTX context;
    X509V3_set_ctx(&context, issuer, certificate, nullptr, nullptr, 0);
    X509_EXTENSION* extension = X509V3_EXT_nconf_nid(nullptr, &context, nid, value);
    if (!extension) throw_openssl_error(std::string("extension ") + OBJ_nid2sn(nid));
    int ok = X509_add_ext(certificate, extension, -1);
    X509_EXTENSION_free(extension);
    if (!ok) throw_openssl_error("X509_add_ext");
}

OpenSslPtr<X509, X509_free> with_cached_encoding(const X509* certificate) {
    unsigned char* der = nullptr;
    const int length = i2d_X509(certificate, &der);
    if (length <= 0) throw_openssl_error("encoding a certificate");
    const unsigned char* cursor = der;
    OpenSslPtr<X509, X509_free> parsed(d2i_X509(nullptr, &cursor, length));
    OPENSSL_free(der);
    if (!parsed) throw_openssl_error("parsing a certificate");
    return parsed;
}

} // namespace osf::ca::detail
