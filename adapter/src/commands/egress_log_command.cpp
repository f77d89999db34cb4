#include "commands/egress_log_command.hpp"

#include "commands/command_errors.hpp"
#include "commands/sandbox_lookup.hpp"
#include "kubectl/kubectl.hpp"
#include "manifests/egress_objects.hpp"
#include "manifests/labels.hpp"
#include "manifests/names.hpp"
#include "manifests/resources.hpp"
#include "manifests/settings.hpp"

namespace osf::commands {

int run_egress_log(CommandContext& context, const EgressLogOptions& options) {
    const std::string id = parse_sandbox_id(options.id);
    const auto settings = manifests::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const auto egress = first_or_no_sandbox(
        kube.list(manifests::kPods, manifests::role_selector_text(id, manifests::kRoleEgress)), id);
    const std::string pod = egress.value("metadata", nlohmann::json::object())
                                .value("name", manifests::egress_name(id));
    kubectl::KubectlCall call;
    call.args = {"exec",
                 pod,
                 "--namespace",
                 settings.ns,
                 "-c",
                 manifests::kProxyContainer,
                 "--",
                 manifests::kProxyBinary,
                 "log",
                 "--state-dir",
                 manifests::kProxyStateDir};
    call.inherit_stdout = true; // the log can be long: stream it
    kube.run_checked(call);
    return 0;
}

void setup_egress_log(CLI::App& app, CommandContext& context) {
    auto options = std::make_shared<EgressLogOptions>();
    CLI::App* sub = app.add_subcommand("egress-log", "Print the sandbox's egress log (JSON lines)");
    sub->add_option("id", options->id, "The sandbox ID (12 hex digits)")->required();
    sub->callback([&context, options] {
        context.exit_code = run_guarded(context, [&] { return run_egress_log(context, *options); });
    });
}

} // namespace osf::commands
