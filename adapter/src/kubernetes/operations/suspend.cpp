#include "kubernetes/operations/suspend.hpp"

#include "commands/command_errors.hpp"
#include "kubernetes/manifests/names.hpp"
#include "kubernetes/manifests/persistence.hpp"
#include "kubernetes/manifests/resources.hpp"
#include "kubernetes/manifests/suspension.hpp"
#include "kubernetes/sandbox_lookup.hpp"
#include "kubernetes/sandbox_state.hpp"
#include "sandbox/lifetime.hpp"
#include "sandbox/settings.hpp"

namespace osf::kubernetes {

bool suspend_sandbox(OperationContext& context, const std::string& id) {
    const auto settings = sandbox::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const SandboxState state = find_sandbox_state(kube, id);
    if (!manifests::has_persistent_workspace(state.sandbox))
        throw commands::CommandFailed(
            "sandbox " + id +
            " keeps /workspace in an emptyDir (its spec has no persistence): "
            "suspending it would lose its files");
    const std::string egress = manifests::egress_name(id);
    if (manifests::sandbox_suspended(state.sandbox) && !kube.get(manifests::kPods, egress)) {
        return false;
    }
    // The egress pod's manifest, for resume (kept once: a retried suspend
    // after the pod went finds it saved).
    if (const auto pod = kube.get(manifests::kPods, egress)) {
        kube.delete_named("configmaps", manifests::saved_egress_pod_name(id));
        kube.create(manifests::saved_egress_pod(*pod, id));
    }
    // The sandbox pod stops first, so it never runs without its proxy.
    set_operating_mode(kube, state, sandbox::rfc3339(context.wall_clock()));
    const auto deadline = context.now() + std::chrono::seconds(settings.start_timeout_seconds);
    while (kube.get(manifests::kPods, state.sandbox_name)) {
        check_interrupted(context);
        if (context.now() >= deadline)
            throw commands::CommandFailed(
                "sandbox pod " + state.sandbox_name + " still runs after " +
                std::to_string(settings.start_timeout_seconds) + "s (OSF_SANDBOX_START_TIMEOUT)");
        context.sleep(context.poll_interval);
    }
    kube.delete_named(manifests::kPods, egress);
    return true;
}

} // namespace osf::kubernetes
