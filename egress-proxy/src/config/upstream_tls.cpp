#include "config/upstream_tls.hpp"

#include <openssl/ssl.h>

namespace osf::config {

namespace ssl = boost::asio::ssl;

std::shared_ptr<ssl::context> make_upstream_tls(const std::string& extra_bundle) {
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
    SSL_CTX* native = ctx->native_handle();
    SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
    SSL_CTX_set_options(native, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_mode(native, SSL_MODE_RELEASE_BUFFERS);
    ctx->set_default_verify_paths();
    if (!extra_bundle.empty()) ctx->load_verify_file(extra_bundle);
    ctx->set_verify_mode(ssl::verify_peer);
    static const unsigned char http11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    SSL_CTX_set_alpn_protos(native, http11, sizeof http11);
    return ctx;
}

} // namespace osf::config
