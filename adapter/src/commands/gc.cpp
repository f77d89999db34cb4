#include "commands/command_errors.hpp"
#include "commands/interrupt.hpp"
#include "commands/label_selection.hpp"
#include "commands/log_saving.hpp"
#include "commands/machine_output.hpp"
#include "commands/subcommands.hpp"

#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

namespace osf::commands {

void setup_gc(CLI::App& app, CommandContext& context) {
    auto dry_run = std::make_shared<bool>(false);
    auto save_logs = std::make_shared<std::string>();
    auto selector = std::make_shared<std::string>();
    auto output = std::make_shared<std::string>();
    CLI::App* sub = app.add_subcommand("gc", context.texts.gc);
    sub->add_flag("--dry-run", *dry_run, "Only print what would be removed");
    sub->add_option("--save-logs", *save_logs,
                    "First save each sandbox's egress log to DIR/<ID>.jsonl (and its key to "
                    "DIR/<ID>.jsonl.pub), verified as destroy --save-log does; a sandbox whose "
                    "log cannot be saved or does not verify is not removed");
    sub->add_option("-l,--selector", *selector,
                    "Only sandboxes whose labels match (k=v, k!=v, k, !k, comma-separated); what "
                    "a sandbox left behind without its labels is then left alone");
    sub->add_option("-o,--output", *output,
                    "json: one JSON line per sandbox, {id, reason} "
                    "(contracts/cli-output.schema.json); default: <ID> <why>");
    sub->callback([&context, dry_run, save_logs, selector, output] {
        guarded(context, [&] {
            const bool json_output = wants_json(*output, "gc");
            if (!save_logs->empty()) check_log_directory(*save_logs);
            const auto wanted = selector_option(*selector);
            auto plan = context.backend->gc_plan();
            if (!selector->empty()) {
                const auto ids = selected_ids(*context.backend, wanted);
                std::erase_if(plan, [&](const auto& removal) { return !ids.contains(removal.id); });
            }
            int failures = 0;
            for (const auto& removal : plan) {
                if (const int signal = context.pending_signal ? context.pending_signal() : 0)
                    throw Interrupted(signal);
                if (!*dry_run) {
                    if (!save_logs->empty() &&
                        !keep_log_in(*save_logs, removal.id, context.err, context.program,
                                     [&](const std::string& path) {
                                         const auto access =
                                             context.backend->egress_log_access(removal.id);
                                         commands::save_log(*access, context.err, context.program,
                                                            path);
                                     })) {
                        ++failures;
                        continue;
                    }
                    try {
                        if (!context.backend->gc_remove(removal.id)) continue;
                    } catch (const Interrupted&) {
                        throw;
                    } catch (const std::exception& e) {
                        context.err << context.program << ": cannot remove " << removal.id << ": "
                                    << e.what() << "\n";
                        ++failures;
                        continue;
                    }
                }
                if (json_output)
                    context.out << removal_json(removal.id, removal.reason).dump() << "\n"
                                << std::flush;
                else
                    context.out << removal.id << " " << removal.reason << "\n" << std::flush;
            }
            return failures == 0 ? 0 : kExitFailure;
        });
    });
}

} // namespace osf::commands
