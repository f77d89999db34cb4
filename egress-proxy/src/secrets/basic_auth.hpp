// `Authorization: Basic <base64(user:password)>` (RFC 7617): the credentials
// are hidden from a plain text search, so substitution decodes them first.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace osf::secrets {

std::string base64_encode(std::string_view bytes);

// Standard alphabet; padding optional. Nothing on any other character.
std::optional<std::string> base64_decode(std::string_view text);

// A header value of the form `<scheme> <token68>` with the scheme "Basic" in
// any letter case, split into the part before the token (kept as written)
// and the decoded credentials.
struct BasicCredentials {
    std::string_view prefix; // "Basic " as written, with its spaces
    std::string decoded;     // "user:password"
};
std::optional<BasicCredentials> parse_basic(std::string_view header_value);

} // namespace osf::secrets
