// Re-signing an AWS SigV4 request: the sandbox signs with placeholder
// credentials; the proxy checks that signature (a request signed with any
// other key to an AWS secret's host is refused: code inside cannot use
// credentials of its own there), then signs the same canonical request with
// the real credentials. Pure: the request path gathers the facts and applies
// the result.
#pragma once

#include "osf/log_fields.hpp"
#include "secrets/sigv4_signing.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace osf::secrets::sigv4 {

// One AWS secret, resolved: the placeholders the sandbox holds and the real values.
struct AwsKeys {
    std::string name;
    std::string placeholder_key_id;
    std::string placeholder_secret;
    std::string placeholder_token; // empty: the secret has no session token
    std::string key_id;
    std::string secret;
    std::string token;
    std::vector<std::string> regions;
    std::vector<std::string> services;
    std::vector<std::string> hosts; // "*.domain" for subdomains
    bool binds(std::string_view host) const;
};

struct RequestToSign {
    std::string_view method;
    std::string_view target; // origin form, as it goes upstream
    std::string_view host;   // the destination, canonical
    std::span<const Field> fields;
    bool has_body = false;
    // The body's SHA-256 (hex), once read, for a request that signs it by its
    // hash without saying it in X-Amz-Content-SHA256 (services other than S3).
    std::optional<std::string_view> body_hash;
};

// The largest body the proxy reads whole to hash it (see needs_body_hash).
inline constexpr std::size_t max_hashed_body = 8 * 1024 * 1024;

// What a STREAMING-AWS4-HMAC-SHA256-PAYLOAD body's chunks are checked and signed with.
struct ChunkSigning {
    std::string amz_date;
    Scope scope;
    std::string placeholder_key; // signing keys (raw)
    std::string real_key;
    std::string placeholder_seed; // the head's signatures: each chunk's chain starts there
    std::string real_seed;
};

struct Resigning {
    const AwsKeys* keys = nullptr; // the secret whose credentials were used
    std::optional<RefusalReason> refused;
    std::string detail; // no secret values
    // The fields to set, each replacing every field of its name.
    std::vector<Field> set_fields;
    std::optional<std::string> target; // the new target (presigned URLs)
    std::optional<ChunkSigning> chunks;
    // The signature covers the body's hash, which the request does not state:
    // ask again with RequestToSign::body_hash once the body is read.
    bool needs_body_hash = false;
    bool changes() const { return keys && !refused && !needs_body_hash; }
};

// Nothing to do (no SigV4 signature, or one for a host no AWS secret binds
// with a key that is no placeholder), a refusal, or what to change.
Resigning resign(std::span<const AwsKeys> secrets, const RequestToSign& request);

} // namespace osf::secrets::sigv4
