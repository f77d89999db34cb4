#include "osf/aws_placeholder.hpp"

#include <cstdint>

namespace osf {

namespace {

// FNV-1a, 64 bits: stable across builds and platforms, no library needed.
// Not a security measure: it only makes each secret's placeholder distinct.
std::uint64_t digest(std::string_view text, std::uint64_t seed) {
    std::uint64_t hash = 14695981039346656037ULL ^ seed;
    for (const unsigned char c : text) {
        hash ^= c;
        hash *= 1099511628211ULL;
    }
    return hash;
}

// `count` characters of the RFC 4648 base-32 alphabet from the two digests.
std::string base32(std::uint64_t high, std::uint64_t low, std::size_t count) {
    static constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    std::string out;
    for (std::size_t i = 0; i < count; ++i) {
        std::uint64_t& word = i % 2 == 0 ? high : low;
        out += alphabet[word & 31];
        word >>= 5;
    }
    return out;
}

} // namespace

std::string aws_placeholder_access_key_id(std::string_view name) {
    return "AKIA" + base32(digest(name, 1), digest(name, 2), 16);
}

std::string aws_placeholder_secret_access_key(std::string_view name) {
    return "osfPlaceholderSecretKey0" + base32(digest(name, 3), digest(name, 4), 16);
}

std::string aws_placeholder_session_token(std::string_view name) {
    return "osf-aws-session-token-placeholder-" + std::string(name);
}

} // namespace osf
