
#include "commands/log_saving.hpp"
#include "commands/sandbox_id_argument.hpp"
#include "commands/subcommands.hpp"

#include <memory>
#include <ostream>

namespace osf::commands {

void setup_suspend(CLI::App& app, CommandContext& context) {
    auto id = std::make_shared<std::string>();
    CLI::App* sub = app.add_subcommand("suspend", context.texts.suspend);
    sub->add_option("id", *id, "The sandbox ID (12 hex digits)")->required();
    sub->callback([&context, id] {
        guarded(context, [&] {
            const std::string checked = parse_sandbox_id(*id);
            if (context.backend->suspend(checked) == sandbox::StateChange::AlreadyThere)
                context.err << "sandbox " << checked << " is already suspended\n";
            else
                context.err << "suspended sandbox " << checked << "\n";
            return 0;
        });
    });
}

} // namespace osf::commands
