#include "kubernetes/egress_log_command.hpp"

#include "commands/command_errors.hpp"
#include "kubernetes/egress_log_source.hpp"
#include "kubernetes/kubectl/kubectl.hpp"
#include "kubernetes/kubectl/kubectl_error.hpp"
#include "kubernetes/manifests/egress_objects.hpp"
#include "kubernetes/sandbox_lookup.hpp"
#include "sandbox/settings.hpp"

#include <ostream>

namespace osf::kubernetes {

void print_egress_log(KubeContext& context, const std::string& id, bool follow, bool raw) {
    const auto settings = sandbox::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const std::string pod = find_egress_pod(kube, id);
    kubectl::KubectlCall call;
    call.args = {"exec",        pod,
                 "--namespace", settings.ns,
                 "-c",          manifests::kProxyContainer,
                 "--",          manifests::kProxyBinary,
                 "log"};
    // The proxy of the same release leaves out the chain's lines unless asked.
    if (raw) call.args.push_back("--raw");
    call.args.insert(call.args.end(), {"--state-dir", manifests::kProxyStateDir});
    if (follow) call.args.push_back("--follow");
    call.inherit_stdout = true; // the log can be long: stream it
    // kubectl runs in its own process group, so a terminal's Ctrl-C reaches
    // only the adapter: stop kubectl then, or --follow would never end.
    call.should_stop = [&context] {
        return context.pending_signal && context.pending_signal() != 0;
    };
    const kubectl::KubectlResult result = context.runner.run(call);
    if (const int signal = context.pending_signal ? context.pending_signal() : 0; signal != 0)
        throw commands::Interrupted(signal);
    kubectl::check(call.args, result);
}

} // namespace osf::kubernetes
