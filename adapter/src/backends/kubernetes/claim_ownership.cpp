#include "backends/kubernetes/claim_ownership.hpp"

#include "commands/command_errors.hpp"
#include "manifests/names.hpp"
#include "manifests/owner_references.hpp"
#include "manifests/resources.hpp"

namespace osf::commands {

void attach_to_claim(kubectl::Kubectl& kube, const manifests::SandboxRequest& request) {
    const std::string claim_name = manifests::sandbox_name(request.id);
    const auto claim = kube.get(manifests::kSandboxClaims, claim_name);
    if (!claim)
        throw CommandFailed("SandboxClaim " + claim_name +
                            " disappeared (its lifetime ended, or it was deleted)");
    const std::string patch =
        manifests::owner_patch(manifests::claim_owner_reference(*claim)).dump();
    for (const auto& object : manifests::claim_owned_objects(request)) {
        kubectl::KubectlCall call;
        call.args = {"patch",  object.resource, object.name, "--namespace", kube.ns(),
                     "--type", "merge",         "-p",        patch};
        kube.run_checked(call);
    }
}

} // namespace osf::commands
