#include "backends/kubernetes/list_command.hpp"

#include "commands/command_errors.hpp"
#include "kubectl/kubectl.hpp"
#include "manifests/labels.hpp"
#include "manifests/resources.hpp"
#include "manifests/sandbox_list.hpp"
#include "manifests/settings.hpp"

namespace osf::commands {

namespace {

// An empty list in a namespace that does not exist is a typo, not "no
// sandboxes". Reading a namespace needs a cluster-wide permission the adapter's
// Role does not have; when it is refused, the empty list stands.
void check_namespace_exists(kubectl::Kubectl& kube) {
    kubectl::KubectlCall call;
    call.args = {"get", "namespace", kube.ns(), "--ignore-not-found", "-o", "name"};
    const auto result = kube.runner().run(call);
    if (result.ok() && result.out.find_first_not_of(" \t\r\n") == std::string::npos)
        throw CommandFailed("namespace " + kube.ns() + " does not exist (OSF_SANDBOX_NAMESPACE)");
}

} // namespace

std::vector<manifests::SandboxRow> list_sandboxes(CommandContext& context) {
    const auto settings = manifests::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const std::string kinds = std::string(manifests::kSandboxClaims) + "," +
                              manifests::kSandboxTemplates + "," + manifests::kPods;
    const auto rows = manifests::sandbox_rows(kube.list(kinds, manifests::managed_selector()),
                                              context.wall_clock());
    if (rows.empty()) check_namespace_exists(kube);
    return rows;
}

} // namespace osf::commands
