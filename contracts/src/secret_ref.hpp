// `secrets` values: "ref:file/<name>", "ref:env/<NAME>", "ref:openbao/<path>"
// (the schema's secretRef pattern).
#pragma once

#include "osf/spec.hpp"

#include <string>
#include <string_view>
#include <variant>

namespace osf::spec_detail {

inline constexpr std::size_t max_secret_ref_length = 1024;
inline constexpr std::size_t max_secret_file_name_length = 255;

// The reference, or a message completing a sentence about the value. A message
// never repeats a value that is not a reference: it may be a pasted secret.
std::variant<SecretRef, std::string> check_secret_ref(std::string_view text);

// NAME as a secret name and as a variable name (`env` keys).
bool is_secret_name(std::string_view name);
bool is_env_name(std::string_view name);

// "my-token" -> "MY_TOKEN": the spelling to suggest for a bad name.
std::string suggest_secret_name(std::string_view name);

} // namespace osf::spec_detail
