#include "kubernetes/operations/gc.hpp"

#include "kubernetes/manifests/gc_plan.hpp"
#include "kubernetes/manifests/object_fields.hpp"
#include "kubernetes/manifests/resources.hpp"
#include "kubernetes/sandbox_lookup.hpp"
#include "sandbox/labels.hpp"
#include "sandbox/settings.hpp"

namespace osf::kubernetes {

namespace {

// The API server picks the pods that ended: those Running, Pending or in an
// unknown phase are neither sent nor read.
constexpr const char* kEndedPods =
    "status.phase!=Running,status.phase!=Pending,status.phase!=Unknown";

} // namespace

std::vector<manifests::GcRemoval> plan_gc(OperationContext& context) {
    const auto settings = sandbox::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    // Only what the rules read: every claim (its expiry) and warm pool (a
    // create that finished), the pods that ended, and parts that no claim
    // owns. Everything else create makes goes with its claim (Kubernetes'
    // garbage collector) and carries a label saying so, so the API server
    // leaves it out. Each object is cut down as it streams in: at thousands
    // of sandboxes neither the objects nor a list of them would fit the
    // CronJob's memory.
    manifests::GcPlanner planner;
    const auto add = [&](nlohmann::json item) { planner.add(manifests::decision_fields(item)); };
    const kubectl::Kubectl::ListOptions small{"", kubectl::Kubectl::kPageOfSmallObjects};
    kube.list_items(manifests::kSandboxClaims, sandbox::managed_selector(), small, add);
    kube.list_items(manifests::kSandboxWarmPools, sandbox::managed_selector(), small, add);
    kube.list_items(manifests::kPods, sandbox::managed_selector(), {kEndedPods}, add);
    // One kubectl process for every other kind: these are an earlier
    // version's leftovers, normally none, so one call beats a page per kind.
    for (auto& part :
         kube.list(manifests::kSandboxPartResources, sandbox::unowned_parts_selector()))
        add(std::move(part));
    return planner.removals(context.wall_clock(), settings.gc_grace);
}

void gc_remove_sandbox(OperationContext& context, const std::string& id) {
    const auto settings = sandbox::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    // Deleting what is already gone (a destroy or expiry racing this gc) is
    // not an error: every delete ignores not-found.
    remove_sandbox(kube, id);
}

} // namespace osf::kubernetes
