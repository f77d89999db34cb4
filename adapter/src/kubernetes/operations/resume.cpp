#include "kubernetes/operations/resume.hpp"

#include "commands/command_errors.hpp"
#include "kubernetes/manifests/claim_lifetime.hpp"
#include "kubernetes/manifests/names.hpp"
#include "kubernetes/manifests/resources.hpp"
#include "kubernetes/manifests/suspension.hpp"
#include "kubernetes/proxy_ca.hpp"
#include "kubernetes/sandbox_lookup.hpp"
#include "kubernetes/sandbox_state.hpp"
#include "kubernetes/start_waiter.hpp"
#include "sandbox/lifetime.hpp"
#include "sandbox/settings.hpp"

#include <ostream>

namespace osf::kubernetes {

namespace {

// The egress pod from its saved manifest, ready; removed again when it does
// not start, so that resume can simply be run again.
void start_egress_pod(OperationContext& context, kubectl::Kubectl& kube, const std::string& id,
                      const std::optional<sandbox::WallTime>& pods_end, StartWaiter& waiter) {
    const std::string egress = manifests::egress_name(id);
    if (!kube.get(manifests::kPods, egress)) {
        const auto saved = kube.get("configmaps", manifests::saved_egress_pod_name(id));
        if (!saved)
            throw commands::CommandFailed("sandbox " + id +
                                          " has no egress pod and no saved one (" +
                                          manifests::saved_egress_pod_name(id) + ")");
        auto pod = manifests::egress_pod_from_saved(*saved);
        if (pod.is_discarded() || !pod.is_object())
            throw commands::CommandFailed(manifests::saved_egress_pod_name(id) +
                                          " holds no pod manifest");
        // The saved deadline counted from the first start; the kubelet counts
        // this pod's from now.
        if (pods_end)
            pod["spec"] = manifests::with_pod_deadline(pod.value("spec", nlohmann::json::object()),
                                                       *pods_end, context.wall_clock());
        kube.create(pod);
    }
    try {
        waiter.wait_pod_ready(egress, "egress proxy");
    } catch (...) {
        context.err << "removing the egress pod that did not start\n";
        kube.delete_named(manifests::kPods, egress);
        throw;
    }
}

} // namespace

bool resume_sandbox(OperationContext& context, const std::string& id) {
    const auto settings = sandbox::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const SandboxState state = find_sandbox_state(kube, id);
    if (!manifests::sandbox_suspended(state.sandbox)) {
        return false;
    }
    const auto pods_end = manifests::claim_pods_end(state.claim);
    if (pods_end && *pods_end <= context.wall_clock())
        throw commands::CommandFailed("sandbox " + id +
                                      " cannot resume: its pods' deadline passed at " +
                                      sandbox::rfc3339(*pods_end));
    StartWaiter waiter(context, kube, std::chrono::seconds(settings.start_timeout_seconds));
    // The order that keeps TLS working: a new proxy (a new CA, made in its
    // memory), its CA into the ConfigMap, and only then the sandbox pod, which
    // reads the CA file when it starts. The Secret was never touched.
    start_egress_pod(context, kube, id, pods_end, waiter);
    const std::string pem = read_proxy_ca(kube, id);
    kubectl::KubectlCall patch_ca;
    patch_ca.args = {"patch",       "configmaps", manifests::ca_config_name(id),
                     "--namespace", settings.ns,  "--type",
                     "merge",       "-p",         manifests::ca_patch(pem).dump()};
    kube.run_checked(patch_ca);
    check_interrupted(context);
    bound_next_pod(kube, state, context.wall_clock());
    set_operating_mode(kube, state, std::nullopt);
    waiter.wait_claim_ready(state.claim["metadata"]["name"].get<std::string>(),
                            manifests::egress_name(id));
    kube.delete_named("configmaps", manifests::saved_egress_pod_name(id));
    return true;
}

} // namespace osf::kubernetes
