#include "net/tls_contexts.hpp"

#include <cstring>
#include <openssl/ssl.h>
#include <stdexcept>

namespace osf::net {

namespace ssl = boost::asio::ssl;

namespace {
// Selects http/1.1 if the client offers it; otherwise no ALPN at all.
int select_http11(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                  unsigned int inlen, void*) {
    static const unsigned char http11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    unsigned char* selected = nullptr;
    if (SSL_select_next_proto(&selected, outlen, http11, sizeof http11, in, inlen) ==
        OPENSSL_NPN_NEGOTIATED) {
        *out = selected;
        return SSL_TLSEXT_ERR_OK;
    }
    return SSL_TLSEXT_ERR_NOACK;
}
} // namespace

std::shared_ptr<ssl::context> make_leaf_context(const ca::Leaf& leaf, X509* ca_cert) {
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
    SSL_CTX* native = ctx->native_handle();
    SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
    SSL_CTX_set_options(native, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
    // Idle tunnels give their 16 KiB+ record buffers back (memory per idle tunnel).
    SSL_CTX_set_mode(native, SSL_MODE_RELEASE_BUFFERS);
    // No server-side session cache: resumption uses stateless tickets, and a
    // cache would keep a session per client connection in memory.
    SSL_CTX_set_session_cache_mode(native, SSL_SESS_CACHE_OFF);
    if (SSL_CTX_use_certificate(native, leaf.certificate.get()) != 1 ||
        SSL_CTX_use_PrivateKey(native, leaf.key.get()) != 1 ||
        SSL_CTX_add1_chain_cert(native, ca_cert) != 1)
        throw std::runtime_error("cannot load a minted leaf into a TLS context");
    SSL_CTX_set_alpn_select_cb(native, select_http11, nullptr);
    return ctx;
}

} // namespace osf::net
