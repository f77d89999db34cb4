// Where a sandbox's egress log and its key come from: the log from the proxy
// (`egress-proxy log` in the egress pod), the key from the sandbox's CA
// ConfigMap, which the adapter wrote at create time. Verifying here, against
// the cluster's copy of the key, does not take the proxy's word for it.
#pragma once

#include "kubernetes/kubectl/kubectl.hpp"
#include "sandbox/egress_log_access.hpp"

#include <memory>
#include <string>

namespace osf::kubernetes {

// The egress pod's name; CommandFailed "no sandbox <ID>" when there is none.
std::string find_egress_pod(kubectl::Kubectl& kube, const std::string& id);

// The whole log as the proxy holds it.
std::string fetch_egress_log(kubectl::Kubectl& kube, const std::string& pod);

// Asks the proxy to sign its log now (`egress-proxy log checkpoint`), so that
// a copy taken next ends with a checkpoint. Throws KubectlError on failure.
void request_checkpoint(kubectl::Kubectl& kube, const std::string& pod);

// The key from the CA ConfigMap; CommandFailed when it holds none.
sandbox::LogKey cluster_log_key(kubectl::Kubectl& kube, const std::string& id);

// The four above as an EgressLogAccess; the egress pod is looked up first
// (CommandFailed "no sandbox <ID>").
class KubeLogAccess final : public sandbox::EgressLogAccess {
public:
    KubeLogAccess(kubectl::Kubectl& kube, std::string id);
    // With the egress pod already found.
    KubeLogAccess(kubectl::Kubectl& kube, std::string id, std::string pod);
    sandbox::LogKey key() override;
    void request_checkpoint() override;
    std::string text() override;

private:
    kubectl::Kubectl& kube_;
    std::string id_;
    std::string pod_;
};

// A KubeLogAccess with its own Kubectl in namespace `ns`.
std::unique_ptr<sandbox::EgressLogAccess>
kube_log_access(kubectl::KubectlRunner& runner, const std::string& ns, const std::string& id);

} // namespace osf::kubernetes
