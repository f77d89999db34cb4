#include "commands/command_errors.hpp"
#include "commands/log_saving.hpp"
#include "commands/sandbox_id_argument.hpp"
#include "commands/subcommands.hpp"
#include "osf/duration.hpp"
#include "sandbox/lifetime.hpp"
#include "sandbox/settings.hpp"

#include <memory>
#include <ostream>

namespace osf::commands {

void setup_extend(CLI::App& app, CommandContext& context) {
    auto options = std::make_shared<std::pair<std::string, std::string>>();
    CLI::App* sub = app.add_subcommand(
        "extend", "Move a sandbox's expiry later by a duration (\"30m\", \"2h\"); prints the new "
                  "expiry");
    sub->add_option("id", options->first, "The sandbox ID (12 hex digits)")->required();
    sub->add_option("duration", options->second, "How much later: 90m, 8h, 1h30m, 2d")->required();
    sub->callback([&context, options] {
        guarded(context, [&] {
            const std::string id = parse_sandbox_id(options->first);
            const auto parsed = osf::parse_duration(options->second);
            if (const auto* problem = std::get_if<std::string>(&parsed))
                throw UsageError("extend: '" + options->second + "' " + *problem);
            const auto settings = sandbox::read_settings(context.getenv);
            try {
                context.out << sandbox::rfc3339(context.backend->extend(
                                   id, std::get<std::chrono::seconds>(parsed),
                                   settings.max_lifetime))
                            << "\n";
            } catch (const sandbox::LifetimeError& e) {
                throw UsageError(e.what());
            }
            return 0;
        });
    });
}

} // namespace osf::commands
