#include "config/upstream_tls.hpp"

#include <future>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

namespace osf::config {

namespace ssl = boost::asio::ssl;

namespace {

using TrustLoad = std::shared_future<bool>;

// The load's future, held by the context itself. OpenSSL frees a context's
// ex_data before its certificate store, so destroying a context whose load is
// still running waits for the load (std::async's future) before the store goes.
void free_trust_load(void*, void* data, CRYPTO_EX_DATA*, int, long, void*) {
    delete static_cast<TrustLoad*>(data);
}

int trust_load_index() {
    static const int index =
        SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, free_trust_load);
    return index;
}

} // namespace

std::shared_ptr<ssl::context> make_upstream_tls(const std::string& extra_bundle) {
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
    SSL_CTX* native = ctx->native_handle();
    SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
    SSL_CTX_set_options(native, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_mode(native, SSL_MODE_RELEASE_BUFFERS);
    if (!extra_bundle.empty()) ctx->load_verify_file(extra_bundle);
    ctx->set_verify_mode(ssl::verify_peer);
    static const unsigned char http11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    SSL_CTX_set_alpn_protos(native, http11, sizeof http11);
    // Parsing the system bundle (about 140 certificates) was well over half of
    // the proxy's start-up CPU, before it could listen; no handshake needs it
    // that early. Nothing else touches the store until wait_for_upstream_trust.
    X509_STORE* store = SSL_CTX_get_cert_store(native);
    auto* load = new TrustLoad(std::async(
        std::launch::async, [store] { return X509_STORE_set_default_paths(store) == 1; }));
    if (SSL_CTX_set_ex_data(native, trust_load_index(), load) != 1) {
        const bool loaded = load->get();
        delete load;
        if (!loaded) ctx->set_default_verify_paths(); // throws, as before, with OpenSSL's reason
    }
    return ctx;
}

bool wait_for_upstream_trust(ssl::context& context) {
    const auto* load = static_cast<const TrustLoad*>(
        SSL_CTX_get_ex_data(context.native_handle(), trust_load_index()));
    return load == nullptr || load->get();
}

} // namespace osf::config
