#include "log/log_signer.hpp"

#include "egress_log/log_chain.hpp"
#include "osf/openssl_ptr.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <stdexcept>
#include <vector>

namespace osf::log {

namespace {

[[noreturn]] void fail(const char* what) {
    ERR_clear_error();
    throw std::runtime_error(std::string("egress log key: ") + what + " failed");
}

} // namespace

struct LogSigner::State {
    EVP_PKEY* key = nullptr;
};

LogSigner::LogSigner() : state_(std::make_unique<State>()) {
    state_->key = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
    if (!state_->key) fail("EVP_PKEY_Q_keygen(ED25519)");
}

LogSigner::~LogSigner() {
    EVP_PKEY_free(state_->key);
}

std::string LogSigner::public_key() const {
    std::string raw(egress_log::public_key_bytes, '\0');
    std::size_t size = raw.size();
    if (EVP_PKEY_get_raw_public_key(state_->key, reinterpret_cast<unsigned char*>(raw.data()),
                                    &size) != 1)
        fail("EVP_PKEY_get_raw_public_key");
    raw.resize(size);
    return raw;
}

std::string LogSigner::public_key_pem() const {
    OpenSslPtr<BIO, BIO_free> bio(BIO_new(BIO_s_mem()));
    if (!bio || PEM_write_bio_PUBKEY(bio.get(), state_->key) != 1) fail("PEM_write_bio_PUBKEY");
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<std::size_t>(size));
}

std::string LogSigner::sign(std::string_view message) const {
    OpenSslPtr<EVP_MD_CTX, EVP_MD_CTX_free> ctx(EVP_MD_CTX_new());
    std::string signature(egress_log::signature_bytes, '\0');
    std::size_t size = signature.size();
    // Ed25519 signs the message itself (no separate digest): one-shot DigestSign.
    if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, state_->key) != 1 ||
        EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &size,
                       reinterpret_cast<const unsigned char*>(message.data()), message.size()) != 1)
        fail("EVP_DigestSign(ED25519)");
    signature.resize(size);
    return signature;
}

std::string random_hex(std::size_t bytes) {
    std::vector<unsigned char> random(bytes);
    if (RAND_bytes(random.data(), static_cast<int>(random.size())) != 1) fail("RAND_bytes");
    return egress_log::to_hex(random.data(), random.size());
}

} // namespace osf::log
