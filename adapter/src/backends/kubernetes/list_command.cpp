#include "backends/kubernetes/list_command.hpp"

#include "commands/command_errors.hpp"
#include "kubectl/kubectl.hpp"
#include "manifests/labels.hpp"
#include "manifests/resources.hpp"
#include "manifests/sandbox_list.hpp"
#include "manifests/settings.hpp"

#include <ostream>

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

int run_list(CommandContext& context, const ListOptions& options) {
    const std::string output = options.json ? "json" : options.output;
    const auto settings = manifests::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const std::string kinds = std::string(manifests::kSandboxClaims) + "," +
                              manifests::kSandboxTemplates + "," + manifests::kPods;
    const auto rows = manifests::sandbox_rows(kube.list(kinds, manifests::managed_selector()),
                                              context.wall_clock());
    if (rows.empty()) check_namespace_exists(kube);
    if (output == "json") {
        context.out << manifests::rows_json(rows).dump(2) << "\n";
    } else if (output == "wide") {
        context.out << manifests::wide_table(rows);
    } else {
        for (const auto& row : rows)
            context.out << row.id << "\n";
    }
    return 0;
}

void setup_list(CLI::App& app, CommandContext& context) {
    auto options = std::make_shared<ListOptions>();
    CLI::App* sub = app.add_subcommand(
        "list", "List the sandbox IDs in the namespace, one per line (-o wide: a table)");
    sub->add_option("-o,--output", options->output,
                    "wide: ID, STATUS, AGE, EXPIRES, IMAGE with a header; json: an array")
        ->check(CLI::IsMember({"wide", "json"}));
    sub->add_flag("--json", options->json, "The same as -o json");
    sub->callback([&context, options] {
        context.exit_code = run_guarded(context, [&] { return run_list(context, *options); });
    });
}

} // namespace osf::commands
