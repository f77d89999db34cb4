#include "backends/kubernetes/destroy_command.hpp"

#include "backends/kubernetes/egress_log_source.hpp"
#include "backends/kubernetes/sandbox_lookup.hpp"
#include "commands/command_errors.hpp"
#include "commands/log_saving.hpp"
#include "manifests/labels.hpp"
#include "manifests/resources.hpp"
#include "manifests/settings.hpp"

#include <ostream>

namespace osf::commands {

int run_destroy(CommandContext& context, const DestroyOptions& options) {
    const std::string id = parse_sandbox_id(options.id);
    check_new_log_file(options.save_log);
    const auto settings = manifests::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const auto objects = kube.list(manifests::kSandboxResources, manifests::id_selector(id));
    if (objects.empty()) throw CommandFailed("no sandbox " + id);
    if (!options.save_log.empty()) {
        try {
            KubeLogAccess access(kube, id);
            save_log(access, context.err, "sandbox-kubernetes", options.save_log);
        } catch (const LogDoesNotVerify& e) {
            throw CommandFailed(destroy_not_removed(e, id));
        }
    }
    remove_sandbox(kube, id);
    context.err << "removed sandbox " << id << "\n";
    return 0;
}

void setup_destroy(CLI::App& app, CommandContext& context) {
    auto options = std::make_shared<DestroyOptions>();
    CLI::App* sub = app.add_subcommand(
        "destroy", "Remove a sandbox and everything made for it (not its snapshots)");
    sub->add_option("id", options->id, "The sandbox ID (12 hex digits)")->required();
    sub->add_option("--save-log", options->save_log,
                    "First save the egress log to this new file (and its key to FILE.pub), "
                    "signed to its last line and verified against the cluster's key; nothing "
                    "is removed if that fails");
    sub->callback([&context, options] {
        context.exit_code = run_guarded(context, [&] { return run_destroy(context, *options); });
    });
}

} // namespace osf::commands
