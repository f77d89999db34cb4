#include "commands/destroy_command.hpp"

#include "commands/command_errors.hpp"
#include "commands/log_saving.hpp"
#include "commands/sandbox_lookup.hpp"
#include "manifests/labels.hpp"
#include "manifests/resources.hpp"
#include "manifests/settings.hpp"

#include <ostream>
#include <unistd.h>

namespace osf::commands {

int run_destroy(CommandContext& context, const DestroyOptions& options) {
    const std::string id = parse_sandbox_id(options.id);
    for (const auto& file : {options.save_log, options.save_log + ".pub"})
        if (!options.save_log.empty() && ::access(file.c_str(), F_OK) == 0)
            throw UsageError("--save-log: " + file + " already exists");
    const auto settings = manifests::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const auto objects = kube.list(manifests::kSandboxResources, manifests::id_selector(id));
    if (objects.empty()) throw CommandFailed("no sandbox " + id);
    if (!options.save_log.empty()) {
        try {
            save_log(context, kube, id, options.save_log);
        } catch (const LogDoesNotVerify& e) {
            throw CommandFailed(std::string(e.what()) + "; sandbox " + id +
                                " not removed: destroy it without --save-log to remove it anyway");
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
