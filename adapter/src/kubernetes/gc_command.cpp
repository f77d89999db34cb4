#include "kubernetes/gc_command.hpp"

#include "kubernetes/manifests/gc_plan.hpp"
#include "kubernetes/manifests/object_columns.hpp"
#include "kubernetes/manifests/resources.hpp"
#include "kubernetes/sandbox_lookup.hpp"
#include "sandbox/labels.hpp"
#include "sandbox/settings.hpp"

namespace osf::kubernetes {

std::vector<manifests::GcRemoval> plan_gc(KubeContext& context) {
    const auto settings = sandbox::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    // The fields gc_plan decides on, not whole objects: at thousands of
    // sandboxes whole pods and ConfigMaps would not fit the CronJob's memory.
    const auto items = manifests::objects_from_columns(
        kube.list_fields(manifests::kSandboxResources, sandbox::managed_selector(),
                         manifests::object_columns_jsonpath()));
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
