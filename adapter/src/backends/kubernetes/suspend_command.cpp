#include "backends/kubernetes/suspend_command.hpp"

#include "backends/kubernetes/sandbox_lookup.hpp"
#include "backends/kubernetes/sandbox_state.hpp"
#include "commands/command_errors.hpp"
#include "manifests/lifetime.hpp"
#include "manifests/names.hpp"
#include "manifests/persistence.hpp"
#include "manifests/resources.hpp"
#include "manifests/settings.hpp"
#include "manifests/suspension.hpp"

namespace osf::commands {

bool suspend_sandbox(CommandContext& context, const std::string& id) {
    const auto settings = manifests::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const SandboxState state = find_sandbox_state(kube, id);
    if (!manifests::has_persistent_workspace(state.sandbox))
        throw CommandFailed("sandbox " + id +
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
    set_operating_mode(kube, state, manifests::rfc3339(context.wall_clock()));
    const auto deadline = context.now() + std::chrono::seconds(settings.start_timeout_seconds);
    while (kube.get(manifests::kPods, state.sandbox_name)) {
        check_interrupted(context);
        if (context.now() >= deadline)
            throw CommandFailed("sandbox pod " + state.sandbox_name + " still runs after " +
                                std::to_string(settings.start_timeout_seconds) +
                                "s (OSF_SANDBOX_START_TIMEOUT)");
        context.sleep(context.poll_interval);
    }
    kube.delete_named(manifests::kPods, egress);
    return true;
}

} // namespace osf::commands
