#include "backends/kubernetes/gc_command.hpp"

#include "backends/kubernetes/sandbox_lookup.hpp"
#include "manifests/gc_plan.hpp"
#include "manifests/labels.hpp"
#include "manifests/resources.hpp"
#include "manifests/settings.hpp"

namespace osf::commands {

std::vector<manifests::GcRemoval> plan_gc(CommandContext& context) {
    const auto settings = manifests::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    return manifests::gc_plan(
        kube.list(manifests::kSandboxResources, manifests::managed_selector()),
        context.wall_clock(), settings.gc_grace);
}

void gc_remove_sandbox(CommandContext& context, const std::string& id) {
    const auto settings = manifests::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    // Deleting what is already gone (a destroy or expiry racing this gc) is
    // not an error: every delete ignores not-found.
    remove_sandbox(kube, id);
}

} // namespace osf::commands
