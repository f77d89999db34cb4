#include "commands/register_commands.hpp"

#include "commands/command_errors.hpp"
#include "commands/copy_command.hpp"
#include "commands/create_command.hpp"
#include "commands/destroy_command.hpp"
#include "commands/egress_log_command.hpp"
#include "commands/exec_command.hpp"
#include "commands/list_command.hpp"
#include "commands/snapshot_command.hpp"

#include <ostream>

namespace osf::commands {

void register_commands(CLI::App& app, CommandContext& context) {
    app.require_subcommand(1);
    setup_create(app, context);
    setup_exec(app, context);
    setup_copy(app, context);
    setup_snapshot(app, context);
    setup_destroy(app, context);
    setup_list(app, context);
    setup_egress_log(app, context);
}

int run_cli(CLI::App& app, CommandContext& context, int argc, const char* const* argv) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // CLI11's own codes are not ours: help is 0, every usage error is 2.
        const int code = app.exit(e, context.out, context.err);
        return code == 0 ? 0 : kExitUsage;
    }
    return context.exit_code;
}

} // namespace osf::commands
