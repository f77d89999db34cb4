#include "backends/kubernetes/extend_command.hpp"

#include "backends/kubernetes/sandbox_lookup.hpp"
#include "commands/command_errors.hpp"
#include "manifests/labels.hpp"
#include "manifests/lifetime.hpp"
#include "manifests/resources.hpp"
#include "manifests/settings.hpp"

namespace osf::commands {

manifests::WallTime extend_sandbox(CommandContext& context, const std::string& id,
                                   std::chrono::seconds by, std::chrono::seconds max) {
    const auto settings = manifests::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const auto claim =
        first_or_no_sandbox(kube.list(manifests::kSandboxClaims, manifests::id_selector(id)), id);

    const manifests::WallTime expires =
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

} // namespace osf::commands
