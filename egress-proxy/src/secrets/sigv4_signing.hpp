// AWS Signature Version 4, the steps of its signing process as pure
// functions: the canonical request, the string to sign, the signing key and
// the signature (HMAC-SHA256, OpenSSL). Nothing here knows about secrets or
// placeholders; sigv4_resigning.* decides what is signed with which key.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace osf::secrets::sigv4 {

inline constexpr std::string_view algorithm = "AWS4-HMAC-SHA256";
inline constexpr std::string_view unsigned_payload = "UNSIGNED-PAYLOAD";
inline constexpr std::string_view streaming_payload = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD";
inline constexpr std::string_view empty_payload_hash =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// "<date>/<region>/<service>/aws4_request".
struct Scope {
    std::string date; // YYYYMMDD
    std::string region;
    std::string service;
    std::string text() const { return date + "/" + region + "/" + service + "/aws4_request"; }
};

// A header as received: name in any case, value as written.
using Field = std::pair<std::string, std::string>;

std::string hex(std::string_view bytes);
std::string sha256_hex(std::string_view data);
std::string hmac_sha256(std::string_view key, std::string_view data); // raw 32 bytes

// kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request").
std::string signing_key(std::string_view secret_access_key, const Scope& scope);
// Hex HMAC of the string to sign under the signing key.
std::string signature(std::string_view signing_key, std::string_view string_to_sign);

// RFC 3986 unreserved characters kept, every other byte "%XX" (upper-case hex);
// '/' kept when `keep_slash`.
std::string uri_encode(std::string_view text, bool keep_slash);
std::string percent_decode(std::string_view text);

// The canonical URI of a path as it is on the wire (already percent-encoded).
// S3 signs that path as it is; every other service encodes it once more
// (so "%3A" is signed as "%253A"), which `encode_again` does.
std::string canonical_uri(std::string_view wire_path, bool encode_again);

// The canonical query string: each name and value decoded and encoded again,
// pairs sorted by name then value; pairs named `drop` left out (the
// signature of a presigned URL). A name without '=' has an empty value.
std::string canonical_query(std::string_view query, std::string_view drop = {});

// "name:value\n" for each signed name (lower case, in the order given, which
// must be sorted): every field of that name, values trimmed, inner runs of
// spaces and tabs made one space, joined with ','. False when a signed name
// has no field.
bool canonical_headers(std::span<const Field> fields, std::span<const std::string> signed_names,
                       std::string& out);

std::string canonical_request(std::string_view method, std::string_view canonical_uri,
                              std::string_view canonical_query, std::string_view canonical_headers,
                              std::string_view signed_headers, std::string_view payload_hash);

std::string string_to_sign(std::string_view amz_date, const Scope& scope,
                           std::string_view canonical_request);

// The string signed for one chunk of a STREAMING-AWS4-HMAC-SHA256-PAYLOAD body.
std::string chunk_string_to_sign(std::string_view amz_date, const Scope& scope,
                                 std::string_view previous_signature, std::string_view chunk_hash);

// Compares two signatures in time independent of where they differ.
bool same_signature(std::string_view a, std::string_view b);

} // namespace osf::secrets::sigv4
