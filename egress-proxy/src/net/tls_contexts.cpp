#include "net/tls_contexts.hpp"

#include <algorithm>
#include <cstring>
#include <openssl/ssl.h>
#include <stdexcept>

namespace osf::net {

namespace ssl = boost::asio::ssl;

namespace {
// The protocols the proxy speaks to clients, most preferred first (ALPN's wire form).
constexpr unsigned char h2_and_http11[] = {2, 'h', '2', 8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
constexpr unsigned char http11_only[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};

// Selects the first of the proxy's protocols the client offers (h2 before
// http/1.1 when `arg` is non-null); otherwise no ALPN at all.
int select_protocol(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                    unsigned int inlen, void* arg) {
    const unsigned char* ours = arg ? h2_and_http11 : http11_only;
    const unsigned int ours_size = arg ? sizeof h2_and_http11 : sizeof http11_only;
    unsigned char* selected = nullptr;
    if (SSL_select_next_proto(&selected, outlen, ours, ours_size, in, inlen) ==
        OPENSSL_NPN_NEGOTIATED) {
        *out = selected;
        return SSL_TLSEXT_ERR_OK;
    }
    return SSL_TLSEXT_ERR_NOACK;
}
// A TLS 1.2 session resumed with a ticket keeps the session's server name:
// SSL_get_servername then reports the first connection's SNI, not this one's,
// and the SNI check is blind. A client that cannot do TLS 1.3 (no 0x0304 in
// supported_versions) is given no ticket and none of its tickets is taken.
bool offers_tls13(SSL* ssl) {
    const unsigned char* ext = nullptr;
    std::size_t length = 0;
    if (SSL_client_hello_get0_ext(ssl, TLSEXT_TYPE_supported_versions, &ext, &length) != 1 ||
        length < 1)
        return false;
    const std::size_t listed = std::min<std::size_t>(ext[0], length - 1);
    for (std::size_t i = 1; i + 1 <= listed; i += 2)
        if (ext[i] == 0x03 && ext[i + 1] == 0x04) return true;
    return false;
}

int no_tls12_resumption(SSL* ssl, int*, void*) {
    if (!offers_tls13(ssl)) SSL_set_options(ssl, SSL_OP_NO_TICKET);
    return SSL_CLIENT_HELLO_SUCCESS;
}
} // namespace

std::shared_ptr<ssl::context> make_leaf_context(const ca::Leaf& leaf, X509* ca_cert, bool http2) {
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
    SSL_CTX* native = ctx->native_handle();
    SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
    SSL_CTX_set_options(native, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
    // Idle tunnels give their 16 KiB+ record buffers back (memory per idle tunnel).
    SSL_CTX_set_mode(native, SSL_MODE_RELEASE_BUFFERS);
    // No server-side session cache: resumption uses stateless tickets, and a
    // cache would keep a session per client connection in memory.
    SSL_CTX_set_session_cache_mode(native, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_client_hello_cb(native, no_tls12_resumption, nullptr);
    // One ticket: a client resumes one connection at a time from it, and each
    // ticket is a session encoded, encrypted and MACed in every handshake.
    SSL_CTX_set_num_tickets(native, 1);
    if (SSL_CTX_use_certificate(native, leaf.certificate.get()) != 1 ||
        SSL_CTX_use_PrivateKey(native, leaf.key.get()) != 1 ||
        SSL_CTX_add1_chain_cert(native, ca_cert) != 1)
        throw std::runtime_error("cannot load a minted leaf into a TLS context");
    static int h2_marker = 0; // any non-null argument selects h2 first
    SSL_CTX_set_alpn_select_cb(native, select_protocol, http2 ? &h2_marker : nullptr);
    return ctx;
}

} // namespace osf::net
