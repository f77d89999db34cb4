#include "osf/process_env.hpp"
#include "secrets/secret_store.hpp"

namespace osf::secrets {

SourceEnvironment SourceEnvironment::from_process() {
    SourceEnvironment env;
    env.getenv = osf::process_getenv;
    if (auto dir = env.getenv("OSF_SECRETS_DIR"); dir && !dir->empty()) env.secrets_dir = *dir;
    return env;
}

} // namespace osf::secrets
