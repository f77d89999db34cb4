#include "kubernetes/egress_log_source.hpp"

#include "commands/command_errors.hpp"
#include "kubernetes/manifests/egress_objects.hpp"
#include "kubernetes/manifests/names.hpp"
#include "kubernetes/manifests/resources.hpp"
#include "kubernetes/manifests/sandbox_objects.hpp"
#include "kubernetes/sandbox_lookup.hpp"
#include "sandbox/labels.hpp"

namespace osf::kubernetes {

std::string find_egress_pod(kubectl::Kubectl& kube, const std::string& id) {
    // By its name: the same cost whatever the namespace holds.
    if (!kube.exists(manifests::kPods, manifests::egress_name(id)))
        throw commands::CommandFailed("no sandbox " + id);
    return manifests::egress_name(id);
}

std::string fetch_egress_log(kubectl::Kubectl& kube, const std::string& pod) {
    return kube.exec_output(
        pod, manifests::kProxyContainer,
        {manifests::kProxyBinary, "log", "--raw", "--state-dir", manifests::kProxyStateDir});
}

void request_checkpoint(kubectl::Kubectl& kube, const std::string& pod) {
    kube.exec_output(
        pod, manifests::kProxyContainer,
        {manifests::kProxyBinary, "log", "checkpoint", "--state-dir", manifests::kProxyStateDir});
}

sandbox::LogKey cluster_log_key(kubectl::Kubectl& kube, const std::string& id) {
    const auto config = kube.get("configmap", manifests::ca_config_name(id));
    const std::string pem = config ? config->value("data", nlohmann::json::object())
                                         .value(manifests::kLogKeyFile, std::string())
                                   : std::string();
    if (pem.empty())
        throw commands::CommandFailed("sandbox " + id + " has no egress log key in ConfigMap " +
                                      manifests::ca_config_name(id) +
                                      " (made by an older sandbox-kubernetes?)");
    auto key = sandbox::log_key_from_pem(pem);
    if (!key)
        throw commands::CommandFailed("the egress log key in ConfigMap " +
                                      manifests::ca_config_name(id) +
                                      " is not an Ed25519 public key");
    return *key;
}

KubeLogAccess::KubeLogAccess(kubectl::Kubectl& kube, std::string id)
    : kube_(kube), id_(std::move(id)), pod_(find_egress_pod(kube_, id_)) {}

KubeLogAccess::KubeLogAccess(kubectl::Kubectl& kube, std::string id, std::string pod)
    : kube_(kube), id_(std::move(id)), pod_(std::move(pod)) {}

sandbox::LogKey KubeLogAccess::key() {
    return cluster_log_key(kube_, id_);
}

void KubeLogAccess::request_checkpoint() {
    kubernetes::request_checkpoint(kube_, pod_);
}

std::string KubeLogAccess::text() {
    return fetch_egress_log(kube_, pod_);
}

namespace {

class OwningKubeLogAccess final : public sandbox::EgressLogAccess {
public:
    OwningKubeLogAccess(kubectl::KubectlRunner& runner, const std::string& ns,
                        const std::string& id)
        : kube_(runner, ns), access_(kube_, id) {}
    sandbox::LogKey key() override { return access_.key(); }
    void request_checkpoint() override { access_.request_checkpoint(); }
    std::string text() override { return access_.text(); }

private:
    kubectl::Kubectl kube_; // before access_, which holds it
    KubeLogAccess access_;
};

} // namespace

std::unique_ptr<sandbox::EgressLogAccess>
kube_log_access(kubectl::KubectlRunner& runner, const std::string& ns, const std::string& id) {
    return std::make_unique<OwningKubeLogAccess>(runner, ns, id);
}

} // namespace osf::kubernetes
