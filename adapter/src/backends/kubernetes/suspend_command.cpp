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

#include <ostream>

namespace osf::commands {

int run_suspend(CommandContext& context, const SuspendOptions& options) {
    const std::string id = parse_sandbox_id(options.id);
    const auto settings = manifests::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const SandboxState state = find_sandbox_state(kube, id);
    if (!manifests::has_persistent_workspace(state.sandbox))
        throw CommandFailed("sandbox " + id +
                            " keeps /workspace in an emptyDir (its spec has no persistence): "
                            "suspending it would lose its files");
    const std::string egress = manifests::egress_name(id);
    if (manifests::sandbox_suspended(state.sandbox) && !kube.get(manifests::kPods, egress)) {
        context.err << "sandbox " << id << " is already suspended\n";
        return 0;
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
    context.err << "suspended sandbox " << id << "\n";
    return 0;
}

void setup_suspend(CLI::App& app, CommandContext& context) {
    auto options = std::make_shared<SuspendOptions>();
    CLI::App* sub = app.add_subcommand(
        "suspend", "Stop a sandbox's pods and keep its persistent workspace (resume brings it "
                   "back)");
    sub->add_option("id", options->id, "The sandbox ID (12 hex digits)")->required();
    sub->callback([&context, options] {
        context.exit_code = run_guarded(context, [&] { return run_suspend(context, *options); });
    });
}

} // namespace osf::commands
