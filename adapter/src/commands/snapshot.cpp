
#include "commands/log_saving.hpp"
#include "commands/sandbox_id_argument.hpp"
#include "commands/snapshot_stamp.hpp"
#include "commands/subcommands.hpp"

#include <memory>
#include <ostream>

namespace osf::commands {

void setup_snapshot(CLI::App& app, CommandContext& context) {
    auto id = std::make_shared<std::string>();
    CLI::App* sub = app.add_subcommand("snapshot", context.texts.snapshot);
    sub->add_option("id", *id, "The sandbox ID (12 hex digits)")->required();
    sub->callback([&context, id] {
        guarded(context, [&] {
            const std::string checked = parse_sandbox_id(*id);
            context.out << context.backend->snapshot(checked, snapshot_stamp(context.wall_clock()))
                        << std::endl;
            return 0;
        });
    });
}

} // namespace osf::commands
