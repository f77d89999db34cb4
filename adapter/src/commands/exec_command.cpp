#include "commands/exec_command.hpp"

#include "commands/command_errors.hpp"
#include "commands/exec_stderr_filter.hpp"
#include "commands/interrupt.hpp"
#include "commands/sandbox_lookup.hpp"
#include "kubectl/kubectl_error.hpp"
#include "manifests/settings.hpp"

#include <ostream>

namespace osf::commands {

int run_exec(CommandContext& context, const ExecOptions& options) {
    const std::string id = parse_sandbox_id(options.id);
    if (options.command.empty())
        throw UsageError("exec: no command given (exec <ID> -- <command>...)");
    const auto settings = manifests::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const std::string pod = find_sandbox_pod(kube, id);

    kubectl::KubectlCall call;
    // The container's workingDir is /workspace, so the command starts there.
    call.args = {"exec", "-i"};
    if (context.terminal) call.args.push_back("-t");
    call.args.insert(call.args.end(), {pod, "--namespace", settings.ns, "--"});
    call.args.insert(call.args.end(), options.command.begin(), options.command.end());
    call.inherit_stdin = true;
    call.inherit_stdout = true;
    ExecStderrFilter filter(
        [&context](std::string_view text) { context.err << text << std::flush; });
    call.on_stderr = [&filter](std::string_view chunk) { filter.feed(chunk); };

    const kubectl::KubectlResult result = context.runner.run(call);
    const auto ending = filter.finish(result.exit_code);
    if (ending.command_exit_code) return *ending.command_exit_code;
    if (!ending.kubectl_error.empty()) {
        kubectl::KubectlResult failure = result;
        failure.err = ending.kubectl_error;
        throw kubectl::KubectlError(kubectl::describe_failure(call.args, failure));
    }
    return result.exit_code;
}

void setup_exec(CLI::App& app, CommandContext& context) {
    auto options = std::make_shared<ExecOptions>();
    CLI::App* sub = app.add_subcommand(
        "exec", "Run a command in the sandbox, in /workspace; exits with the command's exit code");
    sub->add_option("id", options->id, "The sandbox ID (12 hex digits)")->required();
    sub->add_option("command", options->command, "The command and its arguments, after --")
        ->required();
    sub->callback([&context, options] {
        // Ctrl-C goes to the command (kubectl is in our process group).
        ignore_interrupts();
        context.exit_code = run_guarded(context, [&] { return run_exec(context, *options); });
    });
}

} // namespace osf::commands
