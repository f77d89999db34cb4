// Reading OpenBao's answer to a KV v2 read (GET /v1/<mount>/data/<path>):
// the field `value` of `.data.data`, or a message saying why not. Pure.
#pragma once

#include "secrets/source_result.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace osf::secrets {

inline constexpr std::string_view openbao_value_field = "value";

// Why a mount or a secret path cannot be used: empty, a leading or trailing
// '/', an empty, "." or ".." segment, or control characters.
std::optional<std::string> openbao_path_problem(std::string_view path);

// "/v1/<mount>/data/<path>" with every segment percent-encoded, after
// `base_path`.
std::string openbao_target(std::string_view base_path, std::string_view mount,
                           std::string_view path);

// `location` ("<mount>/data/<path>") names the secret in messages.
SourceResult interpret_openbao_reply(int status, std::string_view body, std::string_view location);

} // namespace osf::secrets
