#include "commands/command_errors.hpp"
#include "commands/label_selection.hpp"
#include "commands/log_saving.hpp"
#include "commands/sandbox_id_argument.hpp"
#include "commands/subcommands.hpp"

#include <memory>
#include <ostream>

namespace osf::commands {

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
            int failed = 0;
            for (const auto& id : ids) {
                try {
                    destroy_one(context, id, options->save_log);
                } catch (const UsageError&) {
                    throw;
                } catch (const std::exception& e) {
                    // One that cannot be removed does not keep the others.
                    if (ids.size() == 1) throw;
                    const std::string what = e.what();
                    context.err << context.program << ": "
                                << (what.find(id) == std::string::npos ? id + ": " : "") << what
                                << "\n";
                    ++failed;
                }
            }
            return failed == 0 ? 0 : 1;
        });
    });
}

} // namespace osf::commands
