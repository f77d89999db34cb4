#include "commands/command_errors.hpp"
#include "commands/exec_timeout.hpp"
#include "commands/log_saving.hpp"
#include "commands/sandbox_id_argument.hpp"
#include "commands/subcommands.hpp"
#include "sandbox/settings.hpp"

#include <memory>
#include <ostream>

namespace osf::commands {

void setup_exec(CLI::App& app, CommandContext& context) {
    auto request = std::make_shared<sandbox::ExecRequest>();
    auto timeout = std::make_shared<std::string>();
    auto stdin_flag = std::make_shared<bool>(false);
    auto tty_flag = std::make_shared<bool>(false);
    CLI::App* sub = app.add_subcommand(
        "exec", "Run a command in the sandbox, in /workspace; exits with the command's exit code");
    sub->add_flag("-i,--stdin", *stdin_flag,
                  "Pass stdin to the command (it always is; taken as kubectl exec takes it)");
    sub->add_flag("-t,--tty", *tty_flag,
                  "Give the command a terminal, as kubectl exec -t; with -i or -t only -t gives "
                  "one, with neither one is given when stdin and stdout are terminals");
    sub->add_option("--timeout", *timeout,
                    "Stop the command after this long (90s, 10m, 2h; default "
                    "OSF_SANDBOX_EXEC_TIMEOUT or 1h) and exit 137");
    sub->add_option("id", request->id, "The sandbox ID (12 hex digits)")->required();
    // Not required() here: words after "--" are handed to it before parsing
    // (commands/cli_parsing.cpp), which CLI11's check would not count.
    sub->add_option("command", request->command, "The command and its arguments, after --");
    sub->callback([&context, request, timeout, stdin_flag, tty_flag] {
        // Ctrl-C and SIGTERM are caught (interrupt.hpp): the backend then stops
        // the command and every process it started, and exec exits 130/143.
        guarded(context, [&] {
            sandbox::ExecRequest checked = *request;
            checked.id = parse_sandbox_id(request->id);
            if (checked.command.empty())
                throw UsageError("exec: no command given (exec <ID> -- <command>...)");
            checked.timeout = exec_timeout(*timeout, sandbox::read_settings(context.getenv));
            // kubectl's habit when -i or -t is given: a terminal only with -t.
            checked.terminal =
                (*stdin_flag || *tty_flag) ? (*tty_flag && context.terminal) : context.terminal;
            if (*tty_flag && !context.terminal)
                context.err << context.program
                            << ": exec -t: stdin and stdout are not both a terminal; running "
                               "without one\n";
            context.out.flush();
            const sandbox::ExecResult result = context.backend->exec(checked);
            if (!result.timed_out) return result.exit_code;
            context.err << context.program << ": " << exec_timed_out_message(checked.timeout)
                        << "\n";
            return kExitExecTimeout;
        });
    });
}

} // namespace osf::commands
