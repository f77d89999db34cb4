#include "secrets/env_source.hpp"

namespace osf::secrets {
namespace {

bool valid_name(const std::string& name) {
    if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
    for (char c : name)
        if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

} // namespace

SourceResult read_env_secret(const std::string& name, const SourceEnvironment& env) {
    if (!valid_name(name))
        return SourceResult::failure("the variable name must match ^[A-Z_][A-Z0-9_]*$");
    const std::string variable = std::string(env_secret_prefix) + name;
    auto value = env.getenv ? env.getenv(variable) : std::nullopt;
    if (!value) return SourceResult::failure("the variable " + variable + " is not set");
    return SourceResult::success(std::move(*value));
}

} // namespace osf::secrets
