// Which egress-proxy binary a local sandbox runs.
#pragma once

#include "sandbox/settings.hpp"

#include <string>

namespace osf::local {

// OSF_EGRESS_PROXY_BIN when set; else egress-proxy next to this executable
// (an installed bin/ directory), or in the build tree's egress-proxy/; else
// the first in PATH. Throws std::runtime_error when there is none.
std::string find_proxy_binary(const sandbox::EnvLookup& getenv);

} // namespace osf::local
