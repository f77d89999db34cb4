#include "commands/command_errors.hpp"
#include "commands/interrupt.hpp"
#include "commands/label_selection.hpp"
#include "commands/log_saving.hpp"
#include "commands/machine_output.hpp"
#include "commands/subcommands.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

namespace osf::commands {

void setup_gc(CLI::App& app, CommandContext& context) {
    auto dry_run = std::make_shared<bool>(false);
    auto save_logs = std::make_shared<std::string>();
    auto selector = std::make_shared<std::string>();
    auto output = std::make_shared<std::string>();
    auto batch_size = std::make_shared<int>(50);
    auto max_seconds = std::make_shared<int>(0);
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
    sub->add_option("--batch", *batch_size,
                    "Remove N sandboxes at a time (default 50); a progress line on stderr after "
                    "each batch when there is more than one")
        ->check(CLI::Range(1, 1000));
    sub->add_option("--max-seconds", *max_seconds,
                    "Start no batch after S seconds (default 0: no bound); what is left is for "
                    "the next run, named on stderr, and the exit code stays 0")
        ->check(CLI::Range(0, 86400));
    sub->callback([&context, dry_run, save_logs, selector, output, batch_size, max_seconds] {
        guarded(context, [&] {
            const auto started = context.now();
            const bool json_output = wants_json(*output, "gc");
            if (!save_logs->empty()) check_log_directory(*save_logs);
            const auto wanted = selector_option(*selector);
            auto plan = context.backend->gc_plan();
            if (!selector->empty()) {
                const auto ids = selected_ids(*context.backend, wanted);
                std::erase_if(plan, [&](const auto& removal) { return !ids.contains(removal.id); });
            }
            auto print = [&](const auto& removal) {
                if (json_output)
                    context.out << removal_json(removal.id, removal.reason).dump() << "\n"
                                << std::flush;
                else
                    context.out << removal.id << " " << removal.reason << "\n" << std::flush;
            };
            auto check_signal = [&] {
                if (const int signal = context.pending_signal ? context.pending_signal() : 0)
                    throw Interrupted(signal);
            };
            if (*dry_run) {
                for (const auto& removal : plan) {
                    check_signal();
                    print(removal);
                }
                return 0;
            }
            // One at a time: what a backend without batches does, and what a
            // batch that failed falls back to, so that one sandbox that cannot
            // be removed does not keep the others.
            // 1: removed, 0: it no longer qualifies, -1: failed (named on stderr).
            auto remove_one = [&](const std::string& id) {
                try {
                    return context.backend->gc_remove(id) ? 1 : 0;
                } catch (const Interrupted&) {
                    throw;
                } catch (const std::exception& e) {
                    context.err << context.program << ": cannot remove " << id << ": " << e.what()
                                << "\n";
                    return -1;
                }
            };
            // In batches: a run over thousands of expired sandboxes makes a
            // few calls per batch, not per sandbox, reports as it goes, and
            // stops in time for its CronJob's deadline (the next run goes on).
            const std::size_t per_batch = static_cast<std::size_t>(*batch_size);
            const std::size_t batches = (plan.size() + per_batch - 1) / per_batch;
            int failures = 0;
            std::size_t removed = 0;
            for (std::size_t batch = 0; batch < batches; ++batch) {
                check_signal();
                const std::size_t first = batch * per_batch;
                const auto elapsed =
                    std::chrono::duration_cast<std::chrono::seconds>(context.now() - started);
                if (*max_seconds > 0 && elapsed.count() >= *max_seconds) {
                    context.err << context.program << ": gc: stopped after " << elapsed.count()
                                << " s (--max-seconds " << *max_seconds
                                << "): " << plan.size() - first
                                << " sandboxes left for the next run\n";
                    break;
                }
                std::vector<const sandbox::Backend::Removal*> chunk;
                for (std::size_t at = first; at < std::min(plan.size(), first + per_batch); ++at) {
                    const auto& removal = plan[at];
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
                    chunk.push_back(&removal);
                }
                std::vector<std::string> ids;
                for (const auto* removal : chunk)
                    ids.push_back(removal->id);
                bool all_removed = false;
                try {
                    all_removed = chunk.size() > 1 && context.backend->gc_remove_batch(ids);
                } catch (const Interrupted&) {
                    throw;
                } catch (const std::exception&) {
                    all_removed = false; // each one again, alone, to name what fails
                }
                for (const auto* removal : chunk) {
                    if (!all_removed) {
                        check_signal();
                        const int outcome = remove_one(removal->id);
                        if (outcome < 0) ++failures;
                        if (outcome <= 0) continue;
                    }
                    ++removed;
                    print(*removal);
                }
                if (batches > 1)
                    context.err << context.program << ": gc: batch " << batch + 1 << " of "
                                << batches << ": " << removed << " of " << plan.size()
                                << " removed so far\n"
                                << std::flush;
            }
            return failures == 0 ? 0 : kExitFailure;
        });
    });
}

} // namespace osf::commands
