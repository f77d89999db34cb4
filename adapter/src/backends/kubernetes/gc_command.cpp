#include "backends/kubernetes/gc_command.hpp"

#include "backends/kubernetes/egress_log_source.hpp"
#include "backends/kubernetes/sandbox_lookup.hpp"
#include "commands/command_errors.hpp"
#include "commands/log_saving.hpp"
#include "manifests/gc_plan.hpp"
#include "manifests/labels.hpp"
#include "manifests/resources.hpp"
#include "manifests/settings.hpp"

#include <ostream>

namespace osf::commands {

int run_gc(CommandContext& context, const GcOptions& options) {
    if (!options.save_logs.empty()) check_log_directory(options.save_logs);
    const auto settings = manifests::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const auto removals =
        manifests::gc_plan(kube.list(manifests::kSandboxResources, manifests::managed_selector()),
                           context.wall_clock(), settings.gc_grace);
    int failures = 0;
    for (const auto& removal : removals) {
        check_interrupted(context);
        if (!options.dry_run) {
            if (!options.save_logs.empty() &&
                !keep_log_in(options.save_logs, removal.id, context.err, "sandbox-kubernetes",
                             [&](const std::string& path) {
                                 KubeLogAccess access(kube, removal.id);
                                 save_log(access, context.err, "sandbox-kubernetes", path);
                             })) {
                ++failures;
                continue;
            }
            try {
                // Deleting what is already gone (a destroy or expiry racing
                // this gc) is not an error: every delete ignores not-found.
                remove_sandbox(kube, removal.id);
            } catch (const std::exception& e) {
                context.err << "sandbox-kubernetes: cannot remove " << removal.id << ": "
                            << e.what() << "\n";
                ++failures;
                continue;
            }
        }
        context.out << removal.id << " " << removal.reason << "\n" << std::flush;
    }
    return failures == 0 ? 0 : kExitFailure;
}

void setup_gc(CLI::App& app, CommandContext& context) {
    auto options = std::make_shared<GcOptions>();
    CLI::App* sub = app.add_subcommand(
        "gc", "Remove expired and failed sandboxes and parts left without a claim; one line "
              "each: ID and why");
    sub->add_flag("--dry-run", options->dry_run, "Only print what would be removed");
    sub->add_option("--save-logs", options->save_logs,
                    "First save each sandbox's egress log to DIR/<ID>.jsonl (and its key to "
                    "DIR/<ID>.jsonl.pub), verified as destroy --save-log does; a sandbox whose "
                    "log cannot be saved or does not verify is not removed");
    sub->callback([&context, options] {
        context.exit_code = run_guarded(context, [&] { return run_gc(context, *options); });
    });
}

} // namespace osf::commands
