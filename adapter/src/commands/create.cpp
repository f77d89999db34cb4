
#include "commands/log_saving.hpp"
#include "commands/sandbox_request_reader.hpp"
#include "commands/subcommands.hpp"

#include <memory>
#include <ostream>

namespace osf::commands {

void setup_create(CLI::App& app, CommandContext& context) {
    auto spec = std::make_shared<std::string>();
    auto dry_run = std::make_shared<bool>(false);
    CLI::App* sub =
        app.add_subcommand("create", "Start a sandbox from a spec; prints its 12-hex-digit ID");
    sub->add_option("spec", *spec, "The sandbox spec (JSON)")->required();
    sub->add_flag("--dry-run", *dry_run, context.texts.create_dry_run);
    sub->callback([&context, spec, dry_run] {
        guarded(context, [&] {
            const auto request = read_sandbox_request(*spec, context.getenv, context.file_exists,
                                                      context.random_bytes, context.wall_clock());
            // Advice, not an error: a secret for every egress host still works.
            for (const auto& line : osf::spec_warnings(request.spec))
                context.err << context.program << ": " << line << "\n";
            if (*dry_run) {
                context.out << context.backend->describe(request).dump(2) << "\n";
                return 0;
            }
            context.backend->create(request, context.err);
            context.out << request.id << std::endl;
            return 0;
        });
    });
}

} // namespace osf::commands
