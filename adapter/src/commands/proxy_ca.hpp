// The egress proxy's CA certificate, read from its pod (`egress-proxy ca`):
// create writes it into the CA ConfigMap, resume replaces it there.
#pragma once

#include "kubectl/kubectl.hpp"

#include <string>

namespace osf::commands {

// CommandFailed when the proxy printed no certificate.
std::string read_proxy_ca(kubectl::Kubectl& kube, const std::string& id);

} // namespace osf::commands
