#include "secrets/secret_store.hpp"

#include <cstdlib>

namespace osf::secrets {

SourceEnvironment SourceEnvironment::from_process() {
    SourceEnvironment env;
    env.getenv = [](const std::string& name) -> std::optional<std::string> {
        const char* value = std::getenv(name.c_str());
        if (value == nullptr) return std::nullopt;
        return std::string(value);
    };
    if (auto dir = env.getenv("OSF_SECRETS_DIR"); dir && !dir->empty()) env.secrets_dir = *dir;
    return env;
}

} // namespace osf::secrets
