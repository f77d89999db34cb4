#include "kubernetes/claim_creation.hpp"

#include "kubernetes/kubectl/kubectl_error.hpp"
#include "kubernetes/manifests/create_objects.hpp"
#include "kubernetes/manifests/names.hpp"
#include "kubernetes/manifests/owner_references.hpp"

namespace osf::kubernetes {

nlohmann::json create_claim(kubectl::Kubectl& kube, const sandbox::SandboxRequest& request,
                            const nlohmann::json& base_pod_template) {
    kubectl::KubectlCall call;
    call.args = {"create", "--namespace", kube.ns(), "-o", "json", "-f", "-"};
    call.input = manifests::sandbox_claim_object(request, base_pod_template).dump();
    const auto result = kube.run_checked(call);
    nlohmann::json made;
    try {
        made = nlohmann::json::parse(result.out);
    } catch (const nlohmann::json::exception&) {
        throw kubectl::KubectlError("kubectl create failed: output is not JSON");
    }
    const auto owner = manifests::claim_owner_reference(made);
    if (owner.value("uid", "").empty())
        throw kubectl::KubectlError("kubectl create failed: the SandboxClaim " +
                                    manifests::sandbox_name(request.id) + " has no uid");
    return owner;
}

} // namespace osf::kubernetes
