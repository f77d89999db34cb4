#include "commands/sandbox_id_argument.hpp"

#include "commands/command_errors.hpp"
#include "sandbox/sandbox_id.hpp"

namespace osf::commands {

std::string parse_sandbox_id(const std::string& text) {
    auto id = sandbox::normalize_sandbox_id(text);
    if (!id) throw UsageError("invalid sandbox ID '" + text + "': expected 12 hex digits");
    return *id;
}

} // namespace osf::commands
