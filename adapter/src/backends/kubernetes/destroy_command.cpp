#include "backends/kubernetes/destroy_command.hpp"

#include "backends/kubernetes/sandbox_lookup.hpp"
#include "commands/command_errors.hpp"
#include "manifests/labels.hpp"
#include "manifests/resources.hpp"
#include "manifests/settings.hpp"

namespace osf::commands {

void check_sandbox_exists(CommandContext& context, const std::string& id) {
    const auto settings = manifests::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const auto objects = kube.list(manifests::kSandboxResources, manifests::id_selector(id));
    if (objects.empty()) throw CommandFailed("no sandbox " + id);
}

void destroy_sandbox(CommandContext& context, const std::string& id) {
    const auto settings = manifests::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    remove_sandbox(kube, id);
}

} // namespace osf::commands
