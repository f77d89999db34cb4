#include "commands/backend_commands.hpp"

#include "commands/cli_parsing.hpp"
#include "commands/command_errors.hpp"
#include "commands/subcommands.hpp"

#ifndef OSF_VERSION
#define OSF_VERSION "dev"
#endif

namespace osf::commands {

void guarded(CommandContext& context, const std::function<int()>& body) {
    context.exit_code = report_errors(context.err, context.program, body);
}

void register_backend_commands(CLI::App& app, CommandContext& context) {
    app.require_subcommand(1);
    app.set_version_flag("--version", context.program + " " + OSF_VERSION);
    setup_create(app, context);
    setup_exec(app, context);
    setup_copy(app, context);
    setup_snapshot(app, context);
    setup_destroy(app, context);
    setup_list(app, context);
    setup_egress_log(app, context);
    setup_extend(app, context);
    setup_gc(app, context);
    setup_suspend(app, context);
    setup_resume(app, context);
}

int run_backend_cli(CLI::App& app, CommandContext& context, int argc, const char* const* argv) {
    if (const auto code =
            parse_cli(app, context.out, context.err, context.program + ": ", argc, argv))
        return *code;
    return context.exit_code;
}

} // namespace osf::commands
