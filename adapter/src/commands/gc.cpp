#include "commands/batch_removal.hpp"
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

namespace {

using Removal = sandbox::Backend::Removal;

struct GcOptions {
    bool dry_run = false;
    std::string save_logs;
    std::string selector;
    std::string output;
    int batch_size = 50;
    int max_seconds = 0;
};

void add_gc_options(CLI::App* sub, GcOptions& options) {
    sub->add_flag("--dry-run", options.dry_run, "Only print what would be removed");
    sub->add_option("--save-logs", options.save_logs,
                    "First save each sandbox's egress log to DIR/<ID>.jsonl (and its key to "
                    "DIR/<ID>.jsonl.pub), verified as destroy --save-log does; a sandbox whose "
                    "log cannot be saved or does not verify is not removed");
    sub->add_option("-l,--selector", options.selector,
                    "Only sandboxes whose labels match (k=v, k!=v, k, !k, comma-separated); what "
                    "a sandbox left behind without its labels is then left alone");
    sub->add_option("-o,--output", options.output,
                    "json: one JSON line per sandbox, {id, reason} "
                    "(contracts/cli-output.schema.json); default: <ID> <why>");
    sub->add_option("--batch", options.batch_size,
                    "Remove N sandboxes at a time (default 50); a progress line on stderr after "
                    "each batch when there is more than one")
        ->check(CLI::Range(1, 1000));
    sub->add_option("--max-seconds", options.max_seconds,
                    "Start no batch after S seconds (default 0: no bound); what is left is for "
                    "the next run, named on stderr, and the exit code stays 0")
        ->check(CLI::Range(0, 86400));
}

// One gc run over its plan. In batches: a run over thousands of expired
// sandboxes makes a few calls per batch, not per sandbox, reports as it goes,
// and stops in time for its CronJob's deadline (the next run goes on).
class GcRun {
public:
    // `started`: when the run began (--max-seconds counts the plan's reading too).
    GcRun(CommandContext& context, const GcOptions& options, std::vector<Removal> plan, bool json,
          std::chrono::steady_clock::time_point started)
        : context_(context), options_(options), plan_(std::move(plan)), json_(json),
          started_(started) {}

    int dry_run() {
        for (const auto& removal : plan_) {
            check_signal();
            print(removal);
        }
        return 0;
    }

    int remove_all() {
        const std::size_t per_batch = static_cast<std::size_t>(options_.batch_size);
        const std::size_t batches = (plan_.size() + per_batch - 1) / per_batch;
        for (std::size_t batch = 0; batch < batches; ++batch) {
            check_signal();
            const std::size_t first = batch * per_batch;
            if (out_of_time(first)) break;
            remove_batch(logs_kept(first, std::min(plan_.size(), first + per_batch)));
            if (batches > 1)
                context_.err << context_.program << ": gc: batch " << batch + 1 << " of " << batches
                             << ": " << removed_ << " of " << plan_.size() << " removed so far\n"
                             << std::flush;
        }
        return failures_ == 0 ? 0 : kExitFailure;
    }

private:
    void print(const Removal& removal) {
        if (json_)
            context_.out << removal_json(removal.id, removal.reason).dump() << "\n" << std::flush;
        else
            context_.out << removal.id << " " << removal.reason << "\n" << std::flush;
    }

    void check_signal() {
        if (const int signal = context_.pending_signal ? context_.pending_signal() : 0)
            throw Interrupted(signal);
    }

    bool out_of_time(std::size_t first) {
        const auto elapsed =
            std::chrono::duration_cast<std::chrono::seconds>(context_.now() - started_);
        if (options_.max_seconds == 0 || elapsed.count() < options_.max_seconds) return false;
        context_.err << context_.program << ": gc: stopped after " << elapsed.count()
                     << " s (--max-seconds " << options_.max_seconds
                     << "): " << plan_.size() - first << " sandboxes left for the next run\n";
        return true;
    }

    // The removals of plan_[first, last) whose egress log is kept first when
    // asked (one whose log cannot be kept is not removed).
    std::vector<const Removal*> logs_kept(std::size_t first, std::size_t last) {
        std::vector<const Removal*> kept;
        for (std::size_t at = first; at < last; ++at) {
            const auto& removal = plan_[at];
            if (!options_.save_logs.empty() &&
                !keep_log_in(options_.save_logs, removal.id, context_.err, context_.program,
                             [&](const std::string& path) {
                                 const auto access =
                                     context_.backend->egress_log_access(removal.id);
                                 commands::save_log(*access, context_.err, context_.program, path);
                             })) {
                ++failures_;
                continue;
            }
            kept.push_back(&removal);
        }
        return kept;
    }

    void remove_batch(const std::vector<const Removal*>& chunk) {
        std::vector<std::string> ids;
        for (const auto* removal : chunk)
            ids.push_back(removal->id);
        const bool all_removed = removed_as_batch(*context_.backend, ids);
        for (const auto* removal : chunk) {
            if (!all_removed) {
                check_signal();
                const int outcome = remove_one(removal->id);
                if (outcome < 0) ++failures_;
                if (outcome <= 0) continue;
            }
            ++removed_;
            print(*removal);
        }
    }

    // One at a time: what a backend without batches does, and what a batch
    // that failed falls back to, so that one sandbox that cannot be removed
    // does not keep the others. 1: removed, 0: it no longer qualifies, -1:
    // failed (named on stderr).
    int remove_one(const std::string& id) {
        try {
            return context_.backend->gc_remove(id) ? 1 : 0;
        } catch (const Interrupted&) {
            throw;
        } catch (const std::exception& e) {
            context_.err << context_.program << ": cannot remove " << id << ": " << e.what()
                         << "\n";
            return -1;
        }
    }

    CommandContext& context_;
    const GcOptions& options_;
    std::vector<Removal> plan_;
    bool json_;
    std::chrono::steady_clock::time_point started_;
    int failures_ = 0;
    std::size_t removed_ = 0;
};

int run_gc(CommandContext& context, const GcOptions& options) {
    const auto started = context.now();
    const bool json = wants_json(options.output, "gc");
    if (!options.save_logs.empty()) check_log_directory(options.save_logs);
    const auto wanted = selector_option(options.selector);
    auto plan = context.backend->gc_plan();
    if (!options.selector.empty()) {
        const auto ids = selected_ids(*context.backend, wanted);
        std::erase_if(plan, [&](const auto& removal) { return !ids.contains(removal.id); });
    }
    GcRun run(context, options, std::move(plan), json, started);
    return options.dry_run ? run.dry_run() : run.remove_all();
}

} // namespace

void setup_gc(CLI::App& app, CommandContext& context) {
    auto options = std::make_shared<GcOptions>();
    CLI::App* sub = app.add_subcommand("gc", context.texts.gc);
    add_gc_options(sub, *options);
    sub->callback(
        [&context, options] { guarded(context, [&] { return run_gc(context, *options); }); });
}

} // namespace osf::commands
