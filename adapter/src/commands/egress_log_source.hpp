// Where a sandbox's egress log and its key come from: the log from the proxy
// (`egress-proxy log` in the egress pod), the key from the sandbox's CA
// ConfigMap, which the adapter wrote at create time. Verifying here, against
// the cluster's copy of the key, does not take the proxy's word for it.
#pragma once

#include "kubectl/kubectl.hpp"

#include <string>

namespace osf::commands {

// The egress pod's name; CommandFailed "no sandbox <ID>" when there is none.
std::string find_egress_pod(kubectl::Kubectl& kube, const std::string& id);

// The whole log as the proxy holds it.
std::string fetch_egress_log(kubectl::Kubectl& kube, const std::string& pod);

// Asks the proxy to sign its log now (`egress-proxy log checkpoint`), so that
// a copy taken next ends with a checkpoint. Throws KubectlError on failure.
void request_checkpoint(kubectl::Kubectl& kube, const std::string& pod);

struct LogKey {
    std::string pem; // as published (PUBLIC KEY)
    std::string raw; // 32 bytes
};

// The key from the CA ConfigMap; CommandFailed when it holds none.
LogKey cluster_log_key(kubectl::Kubectl& kube, const std::string& id);

} // namespace osf::commands
