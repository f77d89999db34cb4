#include "commands/destroy_command.hpp"

#include "commands/command_errors.hpp"
#include "commands/sandbox_lookup.hpp"
#include "manifests/labels.hpp"
#include "manifests/resources.hpp"
#include "manifests/settings.hpp"

#include <ostream>

namespace osf::commands {

int run_destroy(CommandContext& context, const DestroyOptions& options) {
    const std::string id = parse_sandbox_id(options.id);
    const auto settings = manifests::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const auto objects = kube.list(manifests::kSandboxResources, manifests::id_selector(id));
    if (objects.empty()) throw CommandFailed("no sandbox " + id);
    remove_sandbox(kube, id);
    context.err << "removed sandbox " << id << "\n";
    return 0;
}

void setup_destroy(CLI::App& app, CommandContext& context) {
    auto options = std::make_shared<DestroyOptions>();
    CLI::App* sub = app.add_subcommand(
        "destroy", "Remove a sandbox and everything made for it (not its snapshots)");
    sub->add_option("id", options->id, "The sandbox ID (12 hex digits)")->required();
    sub->callback([&context, options] {
        context.exit_code = run_guarded(context, [&] { return run_destroy(context, *options); });
    });
}

} // namespace osf::commands
