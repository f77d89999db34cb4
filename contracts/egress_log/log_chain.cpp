#include "egress_log/log_chain.hpp"

#include "osf/openssl_ptr.hpp"

#include <memory>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdexcept>

namespace osf::egress_log {

Sha256 sha256(std::string_view bytes) {
    Sha256 digest{};
    unsigned int size = 0;
    if (!EVP_Digest(bytes.data(), bytes.size(), digest.data(), &size, EVP_sha256(), nullptr))
        ERR_clear_error(); // only on allocation failure; an all-zero digest never verifies
    return digest;
}

struct LineHasher::State {
    EVP_MD* md = nullptr;
    EVP_MD_CTX* ctx = nullptr;
};

LineHasher::LineHasher() : state_(std::make_unique<State>()) {
    state_->md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    state_->ctx = EVP_MD_CTX_new();
    if (!state_->md || !state_->ctx) {
        EVP_MD_free(state_->md);
        EVP_MD_CTX_free(state_->ctx);
        ERR_clear_error();
        throw std::runtime_error("egress log: cannot set up SHA-256");
    }
}

LineHasher::~LineHasher() {
    EVP_MD_CTX_free(state_->ctx);
    EVP_MD_free(state_->md);
}

Sha256 LineHasher::hash(std::string_view bytes) {
    Sha256 digest{};
    unsigned int size = 0;
    if (!EVP_DigestInit_ex2(state_->ctx, state_->md, nullptr) ||
        !EVP_DigestUpdate(state_->ctx, bytes.data(), bytes.size()) ||
        !EVP_DigestFinal_ex(state_->ctx, digest.data(), &size))
        ERR_clear_error(); // an all-zero digest never matches: the line shows as broken
    return digest;
}

std::string to_hex(const unsigned char* data, std::size_t size) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string out(size * 2, '0');
    for (std::size_t i = 0; i < size; ++i) {
        out[2 * i] = hex[data[i] >> 4];
        out[2 * i + 1] = hex[data[i] & 0xF];
    }
    return out;
}

void to_hex(const Sha256& digest, std::string& out) {
    static constexpr char hex[] = "0123456789abcdef";
    out.resize(digest.size() * 2);
    for (std::size_t i = 0; i < digest.size(); ++i) {
        out[2 * i] = hex[digest[i] >> 4];
        out[2 * i + 1] = hex[digest[i] & 0xF];
    }
}

bool is_lower_hex(std::string_view text, std::size_t digits) {
    if (text.size() != digits) return false;
    for (char c : text)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

std::string base64_encode(std::string_view bytes) {
    std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(bytes.data()),
                                  static_cast<int>(bytes.size()));
    out.resize(static_cast<std::size_t>(n));
    return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
    if (text.empty() || text.size() % 4 != 0) return std::nullopt;
    std::string out(text.size() / 4 * 3, '\0');
    const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(text.data()),
                                  static_cast<int>(text.size()));
    if (n < 0) return std::nullopt;
    std::size_t size = static_cast<std::size_t>(n);
    // EVP_DecodeBlock counts padding as zero bytes.
    if (text.back() == '=') --size;
    if (text[text.size() - 2] == '=') --size;
    out.resize(size);
    if (base64_encode(out) != text) return std::nullopt; // not canonical (whitespace, bad padding)
    return out;
}

std::string checkpoint_message(std::string_view log_id, std::uint64_t lines, std::string_view time,
                               std::string_view chain, bool final) {
    std::string message = "osf-egress-log-checkpoint-v1\n";
    message.append(log_id).push_back('\n');
    message.append(std::to_string(lines)).push_back('\n');
    message.append(time).push_back('\n');
    message.append(chain).push_back('\n');
    message.append(final ? "final" : "interim").push_back('\n');
    return message;
}

bool verify_signature(std::string_view public_key, std::string_view message,
                      std::string_view signature) {
    if (public_key.size() != public_key_bytes || signature.size() != signature_bytes) return false;
    OpenSslPtr<EVP_PKEY, EVP_PKEY_free> key(EVP_PKEY_new_raw_public_key(
        EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(public_key.data()),
        public_key.size()));
    OpenSslPtr<EVP_MD_CTX, EVP_MD_CTX_free> ctx(EVP_MD_CTX_new());
    bool ok =
        key && ctx && EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) == 1 &&
        EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                         signature.size(), reinterpret_cast<const unsigned char*>(message.data()),
                         message.size()) == 1;
    ERR_clear_error();
    return ok;
}

std::optional<std::string> ed25519_key_from_pem(std::string_view pem) {
    OpenSslPtr<BIO, BIO_free> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    if (!bio) return std::nullopt;
    OpenSslPtr<EVP_PKEY, EVP_PKEY_free> key(
        PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr));
    ERR_clear_error();
    if (!key || EVP_PKEY_get_id(key.get()) != EVP_PKEY_ED25519) return std::nullopt;
    std::string raw(public_key_bytes, '\0');
    std::size_t size = raw.size();
    if (EVP_PKEY_get_raw_public_key(key.get(), reinterpret_cast<unsigned char*>(raw.data()),
                                    &size) != 1 ||
        size != public_key_bytes) {
        ERR_clear_error();
        return std::nullopt;
    }
    return raw;
}

} // namespace osf::egress_log
