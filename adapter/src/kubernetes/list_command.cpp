#include "kubernetes/list_command.hpp"

#include "commands/command_errors.hpp"
#include "kubernetes/kubectl/kubectl.hpp"
#include "kubernetes/manifests/resources.hpp"
#include "kubernetes/manifests/sandbox_rows.hpp"
#include "sandbox/labels.hpp"
#include "sandbox/sandbox_list.hpp"
#include "sandbox/settings.hpp"

namespace osf::kubernetes {

namespace {

// An empty list in a namespace that does not exist is a typo, not "no
// sandboxes". Reading a namespace needs a cluster-wide permission the adapter's
// Role does not have; when it is refused, the empty list stands.
void check_namespace_exists(kubectl::Kubectl& kube) {
    kubectl::KubectlCall call;
    call.args = {"get", "namespace", kube.ns(), "--ignore-not-found", "-o", "name"};
    const auto result = kube.runner().run(call);
    if (result.ok() && result.out.find_first_not_of(" \t\r\n") == std::string::npos)
        throw commands::CommandFailed("namespace " + kube.ns() +
                                      " does not exist (OSF_SANDBOX_NAMESPACE)");
}

} // namespace

std::vector<sandbox::SandboxRow> list_sandboxes(KubeContext& context) {
    const auto settings = sandbox::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    // The spec ConfigMaps in the same call: every sandbox's policy at once.
    const std::string kinds = std::string(manifests::kSandboxClaims) + "," +
                              manifests::kSandboxTemplates + "," + manifests::kPods + "," +
                              manifests::kConfigMaps;
    const auto rows = manifests::sandbox_rows(kube.list(kinds, sandbox::managed_selector()),
                                              context.wall_clock());
    if (rows.empty()) check_namespace_exists(kube);
    return rows;
}

} // namespace osf::kubernetes
