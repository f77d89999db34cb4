#include "kubernetes/operations/egress_log.hpp"

#include "commands/command_errors.hpp"
#include "kubernetes/egress_log_source.hpp"
#include "kubernetes/kubectl/kubectl.hpp"
#include "kubernetes/kubectl/kubectl_error.hpp"
#include "kubernetes/manifests/egress_objects.hpp"
#include "kubernetes/sandbox_lookup.hpp"
#include "sandbox/settings.hpp"

#include <ostream>

namespace osf::kubernetes {

void print_egress_log(OperationContext& context, const std::string& id, std::ostream& out,
                      bool follow, bool raw) {
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
    // The log can be long: streamed, never held whole, into `out` (which
    // `egress-log --refused --follow` reads line by line), flushed per chunk.
    call.on_stdout = [&out](std::string_view chunk) { out << chunk << std::flush; };
    // kubectl runs in its own process group, so a terminal's Ctrl-C reaches
    // only the adapter: stop kubectl then, or --follow would never end.
    // A reader gone (`| head`) ends it too: with SIGPIPE ignored nothing else would.
    call.should_stop = [&context, &out] {
        return !out || (context.pending_signal && context.pending_signal() != 0);
    };
    const kubectl::KubectlResult result = context.runner.run(call);
    if (const int signal = context.pending_signal ? context.pending_signal() : 0; signal != 0)
        throw commands::Interrupted(signal);
    if (!out) return;
    kubectl::check(call.args, result);
}

} // namespace osf::kubernetes
