// The egress log's hash chain and checkpoint signatures, as both the proxy
// (which writes them) and the verifiers (egress-proxy log verify,
// sandbox-kubernetes egress-log --verify) compute them. Pure: no I/O.
//
// Every line ends with "chain": the SHA-256 (lower-case hex) of the previous
// line's exact bytes, newline included. A proxy run begins with a start line
// naming a random log ID and the run's Ed25519 public key; the start line of
// a new log chains to SHA-256 of the log ID's text. Checkpoint lines sign
// checkpoint_message(): the chain head commits to every line before it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace osf::egress_log {

inline constexpr std::size_t public_key_bytes = 32; // Ed25519
inline constexpr std::size_t signature_bytes = 64;  // Ed25519
inline constexpr std::size_t log_id_hex_digits = 32;

using Sha256 = std::array<unsigned char, 32>;

Sha256 sha256(std::string_view bytes);

// sha256() for a writer hashing every line: the digest is fetched once and
// its context reused (OpenSSL 3 looks the algorithm up on every one-shot
// call). Not thread-safe: one per writer, used under its lock.
class LineHasher {
public:
    LineHasher();
    ~LineHasher();
    LineHasher(const LineHasher&) = delete;
    LineHasher& operator=(const LineHasher&) = delete;
    Sha256 hash(std::string_view bytes);

private:
    struct State;
    std::unique_ptr<State> state_;
};
std::string to_hex(const unsigned char* data, std::size_t size);
inline std::string to_hex(const Sha256& digest) {
    return to_hex(digest.data(), digest.size());
}
// Into `out` (resized to 64), so that a writer reuses its buffer.
void to_hex(const Sha256& digest, std::string& out);
// True for exactly `digits` lower-case hex digits.
bool is_lower_hex(std::string_view text, std::size_t digits);

std::string base64_encode(std::string_view bytes);
// Standard alphabet with padding; nullopt when `text` is not canonical base64.
std::optional<std::string> base64_decode(std::string_view text);

// What a checkpoint's signature covers (version, log ID, lines of the run
// before the checkpoint, the checkpoint's time, its chain field, whether it is
// the run's final checkpoint), one item per line.
std::string checkpoint_message(std::string_view log_id, std::uint64_t lines, std::string_view time,
                               std::string_view chain, bool final);

// Ed25519 over `message` with a raw 32-byte public key. False on any mismatch
// or malformed input.
bool verify_signature(std::string_view public_key, std::string_view message,
                      std::string_view signature);

// A PEM "PUBLIC KEY" (SubjectPublicKeyInfo) holding an Ed25519 key -> its raw
// 32 bytes; nullopt when the text is not one.
std::optional<std::string> ed25519_key_from_pem(std::string_view pem);

} // namespace osf::egress_log
