#include "backends/kubernetes/egress_log_source.hpp"

#include "backends/kubernetes/sandbox_lookup.hpp"
#include "commands/command_errors.hpp"
#include "manifests/egress_objects.hpp"
#include "manifests/labels.hpp"
#include "manifests/names.hpp"
#include "manifests/resources.hpp"
#include "manifests/sandbox_objects.hpp"

namespace osf::commands {

std::string find_egress_pod(kubectl::Kubectl& kube, const std::string& id) {
    const auto egress = first_or_no_sandbox(
        kube.list(manifests::kPods, manifests::role_selector_text(id, manifests::kRoleEgress)), id);
    return egress.value("metadata", nlohmann::json::object())
        .value("name", manifests::egress_name(id));
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

LogKey cluster_log_key(kubectl::Kubectl& kube, const std::string& id) {
    const auto config = kube.get("configmap", manifests::ca_config_name(id));
    const std::string pem = config ? config->value("data", nlohmann::json::object())
                                         .value(manifests::kLogKeyFile, std::string())
                                   : std::string();
    if (pem.empty())
        throw CommandFailed("sandbox " + id + " has no egress log key in ConfigMap " +
                            manifests::ca_config_name(id) +
                            " (made by an older sandbox-kubernetes?)");
    auto key = log_key_from_pem(pem);
    if (!key)
        throw CommandFailed("the egress log key in ConfigMap " + manifests::ca_config_name(id) +
                            " is not an Ed25519 public key");
    return *key;
}

KubeLogAccess::KubeLogAccess(kubectl::Kubectl& kube, std::string id)
    : kube_(kube), id_(std::move(id)), pod_(find_egress_pod(kube_, id_)) {}

KubeLogAccess::KubeLogAccess(kubectl::Kubectl& kube, std::string id, std::string pod)
    : kube_(kube), id_(std::move(id)), pod_(std::move(pod)) {}

LogKey KubeLogAccess::key() {
    return cluster_log_key(kube_, id_);
}

void KubeLogAccess::request_checkpoint() {
    commands::request_checkpoint(kube_, pod_);
}

std::string KubeLogAccess::text() {
    return fetch_egress_log(kube_, pod_);
}

namespace {

class OwningKubeLogAccess final : public EgressLogAccess {
public:
    OwningKubeLogAccess(kubectl::KubectlRunner& runner, const std::string& ns,
                        const std::string& id)
        : kube_(runner, ns), access_(kube_, id) {}
    LogKey key() override { return access_.key(); }
    void request_checkpoint() override { access_.request_checkpoint(); }
    std::string text() override { return access_.text(); }

private:
    kubectl::Kubectl kube_; // before access_, which holds it
    KubeLogAccess access_;
};

} // namespace

std::unique_ptr<EgressLogAccess> kube_log_access(kubectl::KubectlRunner& runner,
                                                 const std::string& ns, const std::string& id) {
    return std::make_unique<OwningKubeLogAccess>(runner, ns, id);
}

} // namespace osf::commands
