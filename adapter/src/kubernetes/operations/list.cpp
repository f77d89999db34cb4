#include "kubernetes/operations/list.hpp"

#include "commands/command_errors.hpp"
#include "kubernetes/kubectl/kubectl.hpp"
#include "kubernetes/manifests/object_fields.hpp"
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

std::vector<sandbox::SandboxRow> list_sandboxes(OperationContext& context, bool with_policy) {
    const auto settings = sandbox::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    // A row is its claim (status, expiry, image), cut down to the fields it
    // needs and folded into the row as it streams in. Templates (four times a
    // claim's size) are read only for claims made before claims named their
    // image. The policy (-o json, -o yaml) is in the spec ConfigMaps, and read
    // only then: of each ConfigMap only a spec ConfigMap's spec is kept (the
    // others hold CA bundles and saved pods).
    manifests::SandboxRowsBuilder rows_of;
    const auto add = [&](nlohmann::json item) { rows_of.add(manifests::decision_fields(item)); };
    kube.list_items(manifests::kSandboxClaims, sandbox::managed_selector(),
                    {"", kubectl::Kubectl::kPageOfSmallObjects}, add);
    if (rows_of.needs_templates())
        kube.list_items(manifests::kSandboxTemplates, sandbox::managed_selector(), add);
    if (with_policy)
        kube.list_items(
            manifests::kConfigMaps, sandbox::managed_selector(),
            [&](nlohmann::json config) { rows_of.add(manifests::spec_fields(config)); });
    const auto rows = rows_of.rows(context.wall_clock());
    if (rows.empty()) check_namespace_exists(kube);
    return rows;
}

} // namespace osf::kubernetes
