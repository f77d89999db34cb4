
#include "commands/log_saving.hpp"
#include "commands/machine_output.hpp"
#include "commands/sandbox_id_argument.hpp"
#include "commands/snapshot_stamp.hpp"
#include "commands/subcommands.hpp"

#include <memory>
#include <ostream>

namespace osf::commands {

void setup_snapshot(CLI::App& app, CommandContext& context) {
    auto id = std::make_shared<std::string>();
    auto output = std::make_shared<std::string>();
    CLI::App* sub = app.add_subcommand("snapshot", context.texts.snapshot);
    sub->add_option("id", *id, "The sandbox ID (12 hex digits)")->required();
    sub->add_option("-o,--output", *output,
                    "json: {id, template} (contracts/cli-output.schema.json); id (the default): "
                    "the template name alone");
    sub->callback([&context, id, output] {
        guarded(context, [&] {
            const bool json_output = wants_json(*output, "snapshot");
            const std::string checked = parse_sandbox_id(*id);
            const std::string name =
                context.backend->snapshot(checked, snapshot_stamp(context.wall_clock()));
            if (json_output)
                context.out << snapshot_json(checked, name).dump() << std::endl;
            else
                context.out << name << std::endl;
            return 0;
        });
    });
}

} // namespace osf::commands
