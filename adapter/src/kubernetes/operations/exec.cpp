#include "kubernetes/operations/exec.hpp"

#include "commands/command_errors.hpp"
#include "kubernetes/exec_stderr_filter.hpp"
#include "kubernetes/kubectl/kubectl_error.hpp"
#include "kubernetes/manifests/exec_relay.hpp"
#include "kubernetes/sandbox_lookup.hpp"
#include "sandbox/exec_stop.hpp"
#include "sandbox/sandbox_id.hpp"
#include "sandbox/settings.hpp"

#include <ostream>

namespace osf::kubernetes {

namespace {

// Stops every process the command started in the sandbox. Best effort: a
// failure is reported, not thrown, since the caller is already failing.
void stop_remote_command(OperationContext& context, kubectl::Kubectl& kube, const std::string& pod,
                         const std::string& marker) {
    kubectl::KubectlCall call;
    // No -c: the pod's default-container annotation names the sandbox container
    // (a named template's first container keeps its own name).
    call.args = {"exec", pod, "--namespace", kube.ns(), "--"};
    for (auto& arg : sandbox::stop_command(marker, sandbox::kExecTerminateGrace))
        call.args.push_back(std::move(arg));
    // Bounded too: the script takes the grace and a few seconds at most.
    const auto deadline = context.now() + sandbox::kExecTerminateGrace + std::chrono::seconds(30);
    call.should_stop = [&context, deadline] { return context.now() >= deadline; };
    const auto result = context.runner.run(call);
    if (!result.ok())
        context.err << "sandbox-kubernetes: exec: could not stop the command in " << pod << ": "
                    << kubectl::describe_failure(call.args, result) << "\n";
}

} // namespace

ExecOutcome exec_in_sandbox(OperationContext& context, const std::string& id,
                            const std::vector<std::string>& command, bool terminal,
                            std::chrono::seconds timeout) {
    const auto settings = sandbox::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const std::string pod = find_sandbox_pod(kube, id);
    const std::string marker = sandbox::sandbox_id_from_bytes(context.random_bytes());

    kubectl::KubectlCall call;
    // The container's workingDir is /workspace, so the command starts there.
    call.args = {"exec", "-i"};
    if (terminal) call.args.push_back("-t");
    call.args.insert(call.args.end(), {pod, "--namespace", settings.ns, "--"});
    // Without a terminal the command's output goes through a relay that stops
    // when the command exits, not when what it left running closes it. A
    // terminal is one the command and its leftovers share: nothing to relay.
    for (auto& arg : terminal ? sandbox::marked_command(marker, command)
                              : manifests::relayed_command(marker, command))
        call.args.push_back(std::move(arg));
    call.inherit_stdin = true;
    call.inherit_stdout = true;
    ExecStderrFilter filter(
        [&context](std::string_view text) { context.err << text << std::flush; });
    call.on_stderr = [&filter](std::string_view chunk) { filter.feed(chunk); };
    const auto deadline = context.now() + timeout;
    bool timed_out = false;
    call.should_stop = [&] {
        if (context.pending_signal && context.pending_signal() != 0) return true;
        timed_out = context.now() >= deadline;
        return timed_out;
    };

    const kubectl::KubectlResult result = context.runner.run(call);
    const int signal = context.pending_signal ? context.pending_signal() : 0;
    if (timed_out || signal != 0) {
        stop_remote_command(context, kube, pod, marker);
        if (signal != 0) throw commands::Interrupted(signal);
        return {commands::kExitExecTimeout, true};
    }
    // kubectl exits with the command's exit code: the code comes from there alone.
    const auto ending = filter.finish(result.exit_code);
    if (ending.command_exit_code) return {*ending.command_exit_code, false};
    if (!ending.kubectl_error.empty()) {
        kubectl::KubectlResult failure = result;
        failure.err = ending.kubectl_error;
        throw kubectl::KubectlError(kubectl::describe_failure(call.args, failure));
    }
    return {result.exit_code, false};
}

} // namespace osf::kubernetes
