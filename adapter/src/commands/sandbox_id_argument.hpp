// The sandbox ID a user typed. Shared by every sandbox CLI.
#pragma once

#include <string>

namespace osf::commands {

// The ID in lower case; UsageError (exit 2) when it is not 12 hex digits.
std::string parse_sandbox_id(const std::string& text);

} // namespace osf::commands
