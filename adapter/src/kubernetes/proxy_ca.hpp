// The egress proxy's CA certificate and its egress log's public key, read
// from its pod (`egress-proxy ca --with-log-key`):
// create writes it into the CA ConfigMap, resume replaces it there.
#pragma once

#include "kubernetes/kubectl/kubectl.hpp"

#include <string>

namespace osf::kubernetes {

// CommandFailed when the proxy printed no certificate or no log key.
std::string read_proxy_ca(kubectl::Kubectl& kube, const std::string& id);

} // namespace osf::kubernetes
