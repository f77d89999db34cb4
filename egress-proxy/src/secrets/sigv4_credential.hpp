// Reading what a SigV4-signed request says about its signature: the
// `Authorization: AWS4-HMAC-SHA256 ...` header, or the X-Amz-* parameters of a
// presigned URL. Pure.
#pragma once

#include "secrets/sigv4_signing.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace osf::secrets::sigv4 {

// "<key id>/<date>/<region>/<service>/aws4_request".
struct Credential {
    std::string key_id;
    Scope scope;
};
std::optional<Credential> parse_credential(std::string_view text);

struct AuthorizationHeader {
    Credential credential;
    std::vector<std::string> signed_headers; // as written (lower case, sorted)
    std::string signed_headers_text;         // "host;x-amz-date"
    std::string signature;                   // 64 lower-case hex digits
};
// The header's value; nullopt when it is not AWS4-HMAC-SHA256 or is malformed.
std::optional<AuthorizationHeader> parse_authorization(std::string_view value);
// True when the value names the AWS4-HMAC-SHA256 scheme, well formed or not.
bool is_sigv4_authorization(std::string_view value);

// One query parameter, decoded; nullopt when absent. `count` receives how many
// there are of that name.
std::optional<std::string> query_parameter(std::string_view query, std::string_view name,
                                           std::size_t* count = nullptr);

// `query` with the value of each parameter named in `values` replaced by its
// (encoded) new value; every other byte kept as written.
std::string replace_query_values(std::string_view query,
                                 const std::vector<std::pair<std::string, std::string>>& values);

// A signature: 64 lower-case hex digits.
bool is_signature(std::string_view text);

} // namespace osf::secrets::sigv4
