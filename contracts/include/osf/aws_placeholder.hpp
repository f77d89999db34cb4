// The placeholder AWS credentials the sandbox holds for a secret of kind
// "aws". They are not secret (the proxy recognises them and the spec's
// reader can compute them); what matters is that they look real to the AWS
// SDKs and that each secret's are distinct. Shared by the adapters (which
// put them in the sandbox's environment) and the proxy (which checks that a
// request was signed with them before signing it again with the real ones).
#pragma once

#include <string>
#include <string_view>

namespace osf {

// "AKIA" + 16 characters of [A-Z2-7] derived from NAME: 20 characters, the
// shape of a long-term access key id.
std::string aws_placeholder_access_key_id(std::string_view name);

// 40 characters, the shape of a secret access key: a fixed prefix and NAME's digest.
std::string aws_placeholder_secret_access_key(std::string_view name);

// "osf-aws-session-token-placeholder-<NAME>".
std::string aws_placeholder_session_token(std::string_view name);

// The sandbox variables that hold them.
inline constexpr std::string_view aws_access_key_id_variable = "AWS_ACCESS_KEY_ID";
inline constexpr std::string_view aws_secret_access_key_variable = "AWS_SECRET_ACCESS_KEY";
inline constexpr std::string_view aws_session_token_variable = "AWS_SESSION_TOKEN";

} // namespace osf
