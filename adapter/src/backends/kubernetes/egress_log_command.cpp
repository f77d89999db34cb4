#include "backends/kubernetes/egress_log_command.hpp"

#include "backends/kubernetes/egress_log_source.hpp"
#include "backends/kubernetes/sandbox_lookup.hpp"
#include "commands/command_errors.hpp"
#include "kubectl/kubectl.hpp"
#include "kubectl/kubectl_error.hpp"
#include "manifests/egress_objects.hpp"
#include "manifests/settings.hpp"

#include <ostream>

namespace osf::commands {

int run_egress_log(CommandContext& context, const EgressLogOptions& options) {
    const std::string id = parse_sandbox_id(options.id);
    const auto settings = manifests::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const std::string pod = find_egress_pod(kube, id);
    if (!options.verify && !options.summary) {
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
        if (options.follow) call.args.push_back("--follow");
        call.inherit_stdout = true; // the log can be long: stream it
        // kubectl runs in its own process group, so a terminal's Ctrl-C reaches
        // only the adapter: stop kubectl then, or --follow would never end.
        call.should_stop = [&context] {
            return context.pending_signal && context.pending_signal() != 0;
        };
        const kubectl::KubectlResult result = context.runner.run(call);
        if (const int signal = context.pending_signal ? context.pending_signal() : 0; signal != 0)
            throw Interrupted(signal);
        kubectl::check(call.args, result);
        return 0;
    }
    KubeLogAccess access(kube, id, pod);
    const LogCopy copy = take_log_copy(access, context.err, "sandbox-kubernetes");
    return report_log_copy(copy, id, options.summary, options.json, context.out, context.err);
}

void setup_egress_log(CLI::App& app, CommandContext& context) {
    auto options = std::make_shared<EgressLogOptions>();
    CLI::App* sub = app.add_subcommand(
        "egress-log", "Print the sandbox's egress log (JSON lines), verify or summarise it");
    sub->add_option("id", options->id, "The sandbox ID (12 hex digits)")->required();
    auto* follow =
        sub->add_flag("-f,--follow", options->follow, "Keep printing lines as they are written");
    auto* verify = sub->add_flag(
        "--verify", options->verify,
        "Check the hash chain and signed checkpoints against the key the cluster holds: exit "
        "0, or 1 naming the first line that does not hold");
    auto* summary = sub->add_flag("--summary", options->summary,
                                  "Hosts, refusals, secrets, MCP tools, time range, and "
                                  "whether the chain verified (exit 1 when it did not)");
    auto* json = sub->add_flag("--json", options->json, "With --summary: one JSON object");
    follow->excludes(verify)->excludes(summary);
    verify->excludes(summary);
    json->needs(summary);
    sub->callback([&context, options] {
        context.exit_code = run_guarded(context, [&] { return run_egress_log(context, *options); });
    });
}

} // namespace osf::commands
