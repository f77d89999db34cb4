#include "kubernetes/operations/gc.hpp"

#include "kubernetes/manifests/gc_plan.hpp"
#include "kubernetes/manifests/object_fields.hpp"
#include "kubernetes/manifests/resources.hpp"
#include "kubernetes/sandbox_lookup.hpp"
#include "sandbox/labels.hpp"
#include "sandbox/settings.hpp"

namespace osf::kubernetes {

std::vector<manifests::GcRemoval> plan_gc(OperationContext& context) {
    const auto settings = sandbox::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    // Each object folded into the plan as it streams in, cut down first: at
    // thousands of sandboxes neither whole pods and ConfigMaps nor a list of
    // every object would fit the CronJob's memory.
    manifests::GcPlanner planner;
    kube.list_items(manifests::kSandboxResources, sandbox::managed_selector(),
                    [&](nlohmann::json item) { planner.add(manifests::decision_fields(item)); });
    return planner.removals(context.wall_clock(), settings.gc_grace);
}

void gc_remove_sandbox(OperationContext& context, const std::string& id) {
    const auto settings = sandbox::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    // Deleting what is already gone (a destroy or expiry racing this gc) is
    // not an error: every delete ignores not-found.
    remove_sandbox(kube, id);
}

void gc_remove_sandboxes(OperationContext& context, const std::vector<std::string>& ids) {
    const auto settings = sandbox::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    remove_sandboxes(kube, ids);
}

} // namespace osf::kubernetes
