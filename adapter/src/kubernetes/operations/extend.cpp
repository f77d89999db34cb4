#include "kubernetes/operations/extend.hpp"

#include "commands/command_errors.hpp"
#include "kubernetes/manifests/claim_lifetime.hpp"
#include "kubernetes/manifests/resources.hpp"
#include "kubernetes/sandbox_lookup.hpp"
#include "sandbox/labels.hpp"
#include "sandbox/lifetime.hpp"
#include "sandbox/settings.hpp"

namespace osf::kubernetes {

sandbox::WallTime extend_sandbox(OperationContext& context, const std::string& id,
                                 std::chrono::seconds by, std::chrono::seconds max) {
    const auto settings = sandbox::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const auto claim = named_or_no_sandbox(kube, manifests::kSandboxClaims, id);

    const sandbox::WallTime expires =
        manifests::extended_expiry(claim, by, max, context.wall_clock());
    kubectl::KubectlCall call;
    call.args = {"patch",
                 manifests::kSandboxClaims,
                 claim["metadata"]["name"].get<std::string>(),
                 "--namespace",
                 settings.ns,
                 "--type",
                 "merge",
                 "-p",
                 manifests::expiry_patch(expires).dump()};
    kube.run_checked(call);
    return expires;
}

} // namespace osf::kubernetes
