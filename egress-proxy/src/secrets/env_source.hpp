// `ref:env/<NAME>`: the proxy's own variable OSF_SECRET_<NAME>.
#pragma once

#include "secrets/secret_store.hpp"
#include "secrets/source_result.hpp"

#include <string>

namespace osf::secrets {

inline constexpr std::string_view env_secret_prefix = "OSF_SECRET_";

// `name` is the <NAME> of the reference. The error names the variable.
SourceResult read_env_secret(const std::string& name, const SourceEnvironment& env);

} // namespace osf::secrets
