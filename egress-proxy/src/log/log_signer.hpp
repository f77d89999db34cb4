// The egress log's signing key: an Ed25519 key pair made at start and held
// only in memory (like the CA's key), so a checkpoint can come only from the
// proxy run that published the public key.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace osf::log {

class LogSigner {
public:
    // Throws std::runtime_error when OpenSSL cannot make the key.
    LogSigner();
    ~LogSigner();
    LogSigner(const LogSigner&) = delete;
    LogSigner& operator=(const LogSigner&) = delete;

    // Raw 32 bytes.
    std::string public_key() const;
    // "-----BEGIN PUBLIC KEY-----" (SubjectPublicKeyInfo), for <state-dir>/log-key.pub.
    std::string public_key_pem() const;
    // Raw 64-byte Ed25519 signature.
    std::string sign(std::string_view message) const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

// `bytes` random bytes as lower-case hex (a log ID).
std::string random_hex(std::size_t bytes);

} // namespace osf::log
