#include "backends/kubernetes/copy_command.hpp"

#include "backends/kubernetes/sandbox_lookup.hpp"
#include "commands/command_errors.hpp"
#include "kubectl/kubectl_error.hpp"
#include "manifests/sandbox_objects.hpp"
#include "manifests/settings.hpp"

namespace osf::commands {

void copy_files(CommandContext& context, const CopyEndpoint& from, const CopyEndpoint& to) {
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
}

} // namespace osf::commands
