// The process's own environment variables as an optional: the one reader the
// proxy and both CLIs pass to code that takes a getenv function (which tests
// give a map instead).
#pragma once

#include <optional>
#include <string>

namespace osf {

std::optional<std::string> process_getenv(const std::string& name);

} // namespace osf
