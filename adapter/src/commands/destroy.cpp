#include "commands/batch_removal.hpp"
#include "commands/command_errors.hpp"
#include "commands/label_selection.hpp"
#include "commands/log_saving.hpp"
#include "commands/sandbox_id_argument.hpp"
#include "commands/subcommands.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <ostream>
#include <vector>

namespace osf::commands {

namespace {

// Sandboxes per batch when several are destroyed (as gc's default batch).
constexpr std::size_t kDestroyBatch = 50;

// One sandbox: its log saved first when asked (nothing removed if that fails).
void destroy_one(CommandContext& context, const std::string& id, const std::string& save_log) {
    context.backend->check_exists(id);
    if (!save_log.empty()) {
        try {
            const auto access = context.backend->egress_log_access(id);
            commands::save_log(*access, context.err, context.program, save_log);
        } catch (const LogDoesNotVerify& e) {
            throw CommandFailed(destroy_not_removed(e, id));
        }
    }
    context.backend->destroy(id);
    context.err << "removed sandbox " << id << "\n";
}

// Whether `what` went wrong for one of several: named, and the others go on.
void report_failure(CommandContext& context, const std::string& id, const std::string& what) {
    context.err << context.program << ": " << (what.find(id) == std::string::npos ? id + ": " : "")
                << what << "\n";
}

// Several sandboxes, none of whose logs is kept: checked (`listed`: they
// come from list, so they exist), then removed in batches, a few backend
// calls each where the backend removes in batches. A batch that fails is
// removed again one at a time, so that one sandbox that cannot be removed
// does not keep the others. Returns how many failed.
int destroy_several(CommandContext& context, const std::vector<std::string>& ids, bool listed) {
    int failed = 0;
    std::vector<std::string> found;
    for (const auto& id : ids) {
        check_interrupted(context);
        try {
            if (!listed) context.backend->check_exists(id);
            found.push_back(id);
        } catch (const UsageError&) {
            throw;
        } catch (const std::exception& e) {
            report_failure(context, id, e.what());
            ++failed;
        }
    }
    for (std::size_t first = 0; first < found.size(); first += kDestroyBatch) {
        check_interrupted(context);
        const std::vector<std::string> batch(
            found.begin() + static_cast<std::ptrdiff_t>(first),
            found.begin() +
                static_cast<std::ptrdiff_t>(std::min(found.size(), first + kDestroyBatch)));
        const bool removed = removed_as_batch(*context.backend, batch);
        for (const auto& id : batch) {
            if (!removed) {
                try {
                    check_interrupted(context);
                    context.backend->destroy(id);
                } catch (const Interrupted&) {
                    throw;
                } catch (const std::exception& e) {
                    report_failure(context, id, e.what());
                    ++failed;
                    continue;
                }
            }
            context.err << "removed sandbox " << id << "\n";
        }
    }
    return failed;
}

} // namespace

void setup_destroy(CLI::App& app, CommandContext& context) {
    struct Options {
        std::vector<std::string> ids;
        std::string save_log;
        bool all = false;
        bool yes = false;
        std::string selector;
    };
    auto options = std::make_shared<Options>();
    CLI::App* sub = app.add_subcommand(
        "destroy", "Remove sandboxes and everything made for them (not their snapshots)");
    sub->add_option("id", options->ids, "The sandbox IDs (12 hex digits each)");
    sub->add_option("--save-log", options->save_log, context.texts.destroy_save_log);
    sub->add_flag("--all", options->all, "Every sandbox that list shows (needs --yes)");
    sub->add_flag("--yes", options->yes, "Confirm --all");
    sub->add_option("-l,--selector", options->selector,
                    "Every sandbox whose labels match (k=v, k!=v, k, !k, comma-separated); "
                    "none matching is not an error");
    sub->callback([&context, options] {
        guarded(context, [&] {
            const bool by_selector = !options->selector.empty();
            if (static_cast<int>(options->all) + static_cast<int>(!options->ids.empty()) +
                    static_cast<int>(by_selector) !=
                1)
                throw UsageError(by_selector ? "destroy: give sandbox IDs, --all or -l, one of them"
                                             : "destroy: give sandbox IDs or --all, not both");
            const auto selector = selector_option(options->selector);
            if (!options->save_log.empty() && options->ids.size() != 1)
                throw UsageError("destroy: --save-log takes one sandbox ID");
            if (options->all && !options->yes)
                throw UsageError("destroy --all removes every sandbox in the namespace; "
                                 "add --yes to confirm");
            // Every ID is checked before anything is removed.
            std::vector<std::string> ids;
            for (const auto& id : options->ids)
                ids.push_back(parse_sandbox_id(id));
            check_new_log_file(options->save_log);
            if (options->all)
                for (const auto& row : context.backend->list(false))
                    ids.push_back(row.id);
            if (by_selector)
                for (const auto& id : selected_ids(*context.backend, selector))
                    ids.push_back(id);
            if (ids.size() == 1) {
                destroy_one(context, ids.front(), options->save_log);
                return 0;
            }
            return destroy_several(context, ids, options->ids.empty()) == 0 ? 0 : 1;
        });
    });
}

} // namespace osf::commands
