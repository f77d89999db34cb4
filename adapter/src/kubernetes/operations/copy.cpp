#include "kubernetes/operations/copy.hpp"

#include "commands/command_errors.hpp"
#include "kubernetes/kubectl/kubectl_error.hpp"
#include "kubernetes/manifests/sandbox_objects.hpp"
#include "kubernetes/sandbox_lookup.hpp"
#include "sandbox/settings.hpp"

namespace osf::kubernetes {

void copy_files(OperationContext& context, const commands::CopyEndpoint& from,
                const commands::CopyEndpoint& to) {
    const std::string id = from.id ? *from.id : *to.id;
    const auto settings = sandbox::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const std::string pod = find_sandbox_pod(kube, id);
    auto side = [&pod](const commands::CopyEndpoint& endpoint) {
        return endpoint.id ? pod + ":" + endpoint.path : endpoint.path;
    };
    if (from.id) {
        // kubectl cp exits 0 when the source does not exist in the pod: check first.
        kubectl::KubectlCall test;
        test.args = {"exec", pod, "--namespace", settings.ns, "--", "test", "-e", from.path};
        const auto result = context.runner.run(test);
        if (result.exit_code == 1 &&
            result.err.find("command terminated with exit code 1") != std::string::npos)
            throw commands::CommandFailed("copy: no " + from.path + " in sandbox " + id);
        kubectl::check(test.args, result);
    }
    kubectl::KubectlCall call;
    call.args = {"cp", side(from), side(to), "--namespace", settings.ns};
    kube.run_checked(call);
}

} // namespace osf::kubernetes
