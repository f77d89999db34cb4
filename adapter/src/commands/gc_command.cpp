#include "commands/gc_command.hpp"

#include "commands/command_errors.hpp"
#include "commands/log_saving.hpp"
#include "commands/sandbox_lookup.hpp"
#include "manifests/gc_plan.hpp"
#include "manifests/labels.hpp"
#include "manifests/resources.hpp"
#include "manifests/settings.hpp"

#include <ostream>
#include <sys/stat.h>
#include <unistd.h>

namespace osf::commands {

namespace {

// --save-logs must name a directory gc can write into; checked before anything is removed.
void check_log_directory(const std::string& dir) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw UsageError("--save-logs: " + dir + " is not a directory");
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        throw UsageError("--save-logs: " + dir + " is not writable");
}

// Saves the log of sandbox `id` into `dir` as <ID>.jsonl and <ID>.jsonl.pub;
// false (and a line on stderr saying why) when the sandbox must stay.
bool keep_log(CommandContext& context, kubectl::Kubectl& kube, const std::string& dir,
              const std::string& id) {
    const std::string path = dir + "/" + id + ".jsonl";
    for (const auto& file : {path, path + ".pub"})
        if (::access(file.c_str(), F_OK) == 0) {
            context.err << "sandbox-kubernetes: " << id << " not removed: " << file
                        << " already exists (a saved log is never overwritten)\n";
            return false;
        }
    try {
        save_log(context, kube, id, path);
        return true;
    } catch (const Interrupted&) {
        throw;
    } catch (const std::exception& e) {
        context.err << "sandbox-kubernetes: " << id << " not removed: its egress log was not "
                    << "kept: " << one_line(e.what()) << "\n";
        return false;
    }
}

} // namespace

int run_gc(CommandContext& context, const GcOptions& options) {
    if (!options.save_logs.empty()) check_log_directory(options.save_logs);
    const auto settings = manifests::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const auto removals =
        manifests::gc_plan(kube.list(manifests::kSandboxResources, manifests::managed_selector()),
                           context.wall_clock(), settings.gc_grace);
    int failures = 0;
    for (const auto& removal : removals) {
        check_interrupted(context);
        if (!options.dry_run) {
            if (!options.save_logs.empty() &&
                !keep_log(context, kube, options.save_logs, removal.id)) {
                ++failures;
                continue;
            }
            try {
                // Deleting what is already gone (a destroy or expiry racing
                // this gc) is not an error: every delete ignores not-found.
                remove_sandbox(kube, removal.id);
            } catch (const std::exception& e) {
                context.err << "sandbox-kubernetes: cannot remove " << removal.id << ": "
                            << e.what() << "\n";
                ++failures;
                continue;
            }
        }
        context.out << removal.id << " " << removal.reason << "\n" << std::flush;
    }
    return failures == 0 ? 0 : kExitFailure;
}

void setup_gc(CLI::App& app, CommandContext& context) {
    auto options = std::make_shared<GcOptions>();
    CLI::App* sub = app.add_subcommand(
        "gc", "Remove expired and failed sandboxes and parts left without a claim; one line "
              "each: ID and why");
    sub->add_flag("--dry-run", options->dry_run, "Only print what would be removed");
    sub->add_option("--save-logs", options->save_logs,
                    "First save each sandbox's egress log to DIR/<ID>.jsonl (and its key to "
                    "DIR/<ID>.jsonl.pub), verified as destroy --save-log does; a sandbox whose "
                    "log cannot be saved or does not verify is not removed");
    sub->callback([&context, options] {
        context.exit_code = run_guarded(context, [&] { return run_gc(context, *options); });
    });
}

} // namespace osf::commands
