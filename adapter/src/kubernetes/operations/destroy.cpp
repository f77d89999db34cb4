#include "kubernetes/operations/destroy.hpp"

#include "commands/command_errors.hpp"
#include "kubernetes/manifests/names.hpp"
#include "kubernetes/manifests/resources.hpp"
#include "kubernetes/sandbox_lookup.hpp"
#include "sandbox/labels.hpp"
#include "sandbox/settings.hpp"

namespace osf::kubernetes {

void check_sandbox_exists(OperationContext& context, const std::string& id) {
    const auto settings = sandbox::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    // By the claim's name: the same cost whatever the namespace holds. Only a
    // sandbox without a claim (parts left behind) is looked for by its label.
    if (kube.exists(manifests::kSandboxClaims, manifests::sandbox_name(id))) return;
    const auto objects = kube.list(manifests::kSandboxResources, sandbox::id_selector(id));
    if (objects.empty()) throw commands::CommandFailed("no sandbox " + id);
}

void destroy_sandbox(OperationContext& context, const std::string& id) {
    const auto settings = sandbox::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    remove_sandbox(kube, id);
}

void destroy_sandboxes(OperationContext& context, const std::vector<std::string>& ids) {
    const auto settings = sandbox::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    remove_sandboxes(kube, ids);
}

} // namespace osf::kubernetes
