#include "kubernetes/gc_command.hpp"

#include "kubernetes/manifests/gc_plan.hpp"
#include "kubernetes/manifests/object_fields.hpp"
#include "kubernetes/manifests/resources.hpp"
#include "kubernetes/sandbox_lookup.hpp"
#include "sandbox/labels.hpp"
#include "sandbox/settings.hpp"

namespace osf::kubernetes {

std::vector<manifests::GcRemoval> plan_gc(KubeContext& context) {
    const auto settings = sandbox::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    // The fields gc_plan decides on, each object cut down as it streams in:
    // at thousands of sandboxes whole pods and ConfigMaps would not fit the
    // CronJob's memory.
    nlohmann::json items = nlohmann::json::array();
    kube.list_items(
        manifests::kSandboxResources, sandbox::managed_selector(),
        [&](nlohmann::json item) { items.push_back(manifests::decision_fields(item)); });
    return manifests::gc_plan(items, context.wall_clock(), settings.gc_grace);
}

void gc_remove_sandbox(KubeContext& context, const std::string& id) {
    const auto settings = sandbox::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    // Deleting what is already gone (a destroy or expiry racing this gc) is
    // not an error: every delete ignores not-found.
    remove_sandbox(kube, id);
}

} // namespace osf::kubernetes
