#include "backends/kubernetes/copy_command.hpp"

#include "backends/kubernetes/sandbox_lookup.hpp"
#include "commands/command_errors.hpp"
#include "kubectl/kubectl_error.hpp"
#include "manifests/sandbox_objects.hpp"
#include "manifests/settings.hpp"

namespace osf::commands {

int run_copy(CommandContext& context, const CopyOptions& options) {
    const CopyEndpoint from = parse_copy_endpoint(options.from);
    const CopyEndpoint to = parse_copy_endpoint(options.to);
    if (from.id.has_value() == to.id.has_value())
        throw UsageError("copy: exactly one of <from> and <to> must be <ID>:<path>");
    if (from.path.empty() || to.path.empty()) throw UsageError("copy: empty path");
    const std::string id = from.id ? *from.id : *to.id;
    const auto settings = manifests::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const std::string pod = find_sandbox_pod(kube, id);
    auto side = [&pod](const CopyEndpoint& endpoint) {
        return endpoint.id ? pod + ":" + endpoint.path : endpoint.path;
    };
    if (from.id) {
        // kubectl cp exits 0 when the source does not exist in the pod: check first.
        kubectl::KubectlCall test;
        test.args = {"exec", pod, "--namespace", settings.ns, "--", "test", "-e", from.path};
        const auto result = context.runner.run(test);
        if (result.exit_code == 1 &&
            result.err.find("command terminated with exit code 1") != std::string::npos)
            throw CommandFailed("copy: no " + from.path + " in sandbox " + id);
        kubectl::check(test.args, result);
    }
    kubectl::KubectlCall call;
    call.args = {"cp", side(from), side(to), "--namespace", settings.ns};
    kube.run_checked(call);
    return 0;
}

void setup_copy(CLI::App& app, CommandContext& context) {
    auto options = std::make_shared<CopyOptions>();
    CLI::App* sub = app.add_subcommand("copy", "Copy files into or out of a sandbox: <ID>:<path> "
                                               "is the sandbox side, relative to /workspace");
    sub->add_option("from", options->from, "Source: a local path or <ID>:<path>")->required();
    sub->add_option("to", options->to, "Destination: a local path or <ID>:<path>")->required();
    sub->callback([&context, options] {
        context.exit_code = run_guarded(context, [&] { return run_copy(context, *options); });
    });
}

} // namespace osf::commands
