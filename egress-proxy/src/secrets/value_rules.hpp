// Which real values may be put into a request header.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace osf::secrets {

// Why `value` cannot be used as a secret, or nothing when it can. Empty
// values are refused (an empty credential is almost always a mistake in the
// source), and so are control characters other than tab: CR, LF and NUL would
// let a value inject headers, the others are not allowed in HTTP field values.
std::optional<std::string> value_problem(std::string_view value);

} // namespace osf::secrets
