#include "commands/backend_commands.hpp"

#include "commands/cli_parsing.hpp"
#include "commands/command_errors.hpp"
#include "commands/copy_endpoint.hpp"
#include "commands/egress_log_copy.hpp"
#include "commands/egress_log_options.hpp"
#include "commands/exec_timeout.hpp"
#include "commands/interrupt.hpp"
#include "commands/log_saving.hpp"
#include "commands/sandbox_id_argument.hpp"
#include "commands/sandbox_request_reader.hpp"
#include "commands/snapshot_stamp.hpp"
#include "osf/duration.hpp"
#include "sandbox/lifetime.hpp"
#include "sandbox/settings.hpp"

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#ifndef OSF_VERSION
#define OSF_VERSION "dev"
#endif

namespace osf::commands {

namespace {

void guarded(BackendContext& context, const std::function<int()>& body) {
    context.exit_code = report_errors(context.err, context.program, body);
}

void setup_create(CLI::App& app, BackendContext& context) {
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
            if (*dry_run) {
                context.out << context.backend.describe(request).dump(2) << "\n";
                return 0;
            }
            context.backend.create(request, context.err);
            context.out << request.id << std::endl;
            return 0;
        });
    });
}

void setup_exec(CLI::App& app, BackendContext& context) {
    auto request = std::make_shared<sandbox::ExecRequest>();
    auto timeout = std::make_shared<std::string>();
    auto stdin_flag = std::make_shared<bool>(false);
    auto tty_flag = std::make_shared<bool>(false);
    CLI::App* sub = app.add_subcommand(
        "exec", "Run a command in the sandbox, in /workspace; exits with the command's exit code");
    sub->add_flag("-i,--stdin", *stdin_flag,
                  "Pass stdin to the command (it always is; taken as kubectl exec takes it)");
    sub->add_flag("-t,--tty", *tty_flag,
                  "Give the command a terminal, as kubectl exec -t; with -i or -t only -t gives "
                  "one, with neither one is given when stdin and stdout are terminals");
    sub->add_option("--timeout", *timeout,
                    "Stop the command after this long (90s, 10m, 2h; default "
                    "OSF_SANDBOX_EXEC_TIMEOUT or 1h) and exit 137");
    sub->add_option("id", request->id, "The sandbox ID (12 hex digits)")->required();
    // Not required() here: words after "--" are handed to it before parsing
    // (commands/cli_parsing.cpp), which CLI11's check would not count.
    sub->add_option("command", request->command, "The command and its arguments, after --");
    sub->callback([&context, request, timeout, stdin_flag, tty_flag] {
        // Ctrl-C and SIGTERM are caught (interrupt.hpp): the backend then stops
        // the command and every process it started, and exec exits 130/143.
        guarded(context, [&] {
            sandbox::ExecRequest checked = *request;
            checked.id = parse_sandbox_id(request->id);
            if (checked.command.empty())
                throw UsageError("exec: no command given (exec <ID> -- <command>...)");
            checked.timeout = exec_timeout(*timeout, sandbox::read_settings(context.getenv));
            // kubectl's habit when -i or -t is given: a terminal only with -t.
            checked.terminal =
                (*stdin_flag || *tty_flag) ? (*tty_flag && context.terminal) : context.terminal;
            if (*tty_flag && !context.terminal)
                context.err << context.program
                            << ": exec -t: stdin and stdout are not both a terminal; running "
                               "without one\n";
            context.out.flush();
            const sandbox::ExecResult result = context.backend.exec(checked);
            if (!result.timed_out) return result.exit_code;
            context.err << context.program << ": " << exec_timed_out_message(checked.timeout)
                        << "\n";
            return kExitExecTimeout;
        });
    });
}

void setup_copy(CLI::App& app, BackendContext& context) {
    auto options = std::make_shared<std::pair<std::string, std::string>>();
    CLI::App* sub = app.add_subcommand("copy", "Copy files into or out of a sandbox: <ID>:<path> "
                                               "is the sandbox side, relative to /workspace");
    sub->add_option("from", options->first, "Source: a local path or <ID>:<path>")->required();
    sub->add_option("to", options->second, "Destination: a local path or <ID>:<path>")->required();
    sub->callback([&context, options] {
        guarded(context, [&] {
            const auto from = parse_copy_endpoint(options->first);
            const auto to = parse_copy_endpoint(options->second);
            if (from.id.has_value() == to.id.has_value())
                throw UsageError("copy: exactly one of <from> and <to> must be <ID>:<path>");
            if (from.path.empty() || to.path.empty()) throw UsageError("copy: empty path");
            sandbox::CopyRequest request;
            request.into_sandbox = to.id.has_value();
            request.id = request.into_sandbox ? *to.id : *from.id;
            request.sandbox_path = request.into_sandbox ? to.path : from.path;
            request.local_path = request.into_sandbox ? from.path : to.path;
            context.backend.copy(request);
            return 0;
        });
    });
}

void setup_snapshot(CLI::App& app, BackendContext& context) {
    auto id = std::make_shared<std::string>();
    CLI::App* sub = app.add_subcommand("snapshot", context.texts.snapshot);
    sub->add_option("id", *id, "The sandbox ID (12 hex digits)")->required();
    sub->callback([&context, id] {
        guarded(context, [&] {
            const std::string checked = parse_sandbox_id(*id);
            context.out << context.backend.snapshot(checked, snapshot_stamp(context.wall_clock()))
                        << std::endl;
            return 0;
        });
    });
}

// One sandbox: its log saved first when asked (nothing removed if that fails).
void destroy_one(BackendContext& context, const std::string& id, const std::string& save_log) {
    context.backend.check_exists(id);
    if (!save_log.empty()) {
        try {
            const auto access = context.backend.egress_log_access(id);
            commands::save_log(*access, context.err, context.program, save_log);
        } catch (const LogDoesNotVerify& e) {
            throw CommandFailed(destroy_not_removed(e, id));
        }
    }
    context.backend.destroy(id);
    context.err << "removed sandbox " << id << "\n";
}

void setup_destroy(CLI::App& app, BackendContext& context) {
    struct Options {
        std::vector<std::string> ids;
        std::string save_log;
        bool all = false;
        bool yes = false;
    };
    auto options = std::make_shared<Options>();
    CLI::App* sub = app.add_subcommand(
        "destroy", "Remove sandboxes and everything made for them (not their snapshots)");
    sub->add_option("id", options->ids, "The sandbox IDs (12 hex digits each)");
    sub->add_option("--save-log", options->save_log, context.texts.destroy_save_log);
    sub->add_flag("--all", options->all, "Every sandbox that list shows (needs --yes)");
    sub->add_flag("--yes", options->yes, "Confirm --all");
    sub->callback([&context, options] {
        guarded(context, [&] {
            if (options->all == !options->ids.empty())
                throw UsageError("destroy: give sandbox IDs or --all, not both");
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
                for (const auto& row : context.backend.list())
                    ids.push_back(row.id);
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

void setup_list(CLI::App& app, BackendContext& context) {
    auto output = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    CLI::App* sub = app.add_subcommand("list", context.texts.list);
    sub->add_option("-o,--output", *output,
                    "wide: ID, STATUS, AGE, EXPIRES, IMAGE with a header; json: an array; "
                    "yaml: the same as YAML; name: sandbox/<ID> per line, as kubectl -o name")
        ->check(CLI::IsMember({"wide", "json", "yaml", "name"}));
    sub->add_flag("--json", *json, "The same as -o json");
    sub->callback([&context, output, json] {
        guarded(context, [&] {
            const auto rows = context.backend.list();
            const std::string format = *json ? "json" : *output;
            if (format == "json")
                context.out << sandbox::rows_json(rows).dump(2) << "\n";
            else if (format == "yaml")
                context.out << sandbox::rows_yaml(rows);
            else if (format == "wide")
                context.out << sandbox::wide_table(rows);
            else if (format == "name")
                for (const auto& row : rows)
                    context.out << "sandbox/" << row.id << "\n";
            else
                for (const auto& row : rows)
                    context.out << row.id << "\n";
            return 0;
        });
    });
}

void setup_egress_log(CLI::App& app, BackendContext& context) {
    auto options = std::make_shared<EgressLogOptions>();
    CLI::App* sub = app.add_subcommand(
        "egress-log",
        "Print the sandbox's egress log (one JSON line per request), verify, summarise or "
        "report on it");
    sub->add_option("id", options->id, "The sandbox ID (12 hex digits)")->required();
    auto* follow = sub->add_flag("-f,--follow", options->follow, context.texts.egress_log_follow);
    auto* raw = sub->add_flag("--raw", options->raw,
                              "Print the signed file exactly as written: the chain's start and "
                              "checkpoint lines with the requests (what --verify reads)");
    auto* verify = sub->add_flag("--verify", options->verify, context.texts.egress_log_verify);
    auto* summary = sub->add_flag("--summary", options->summary,
                                  "Hosts, refusals, secrets, MCP tools, time range, and "
                                  "whether the chain verified (exit 1 when it did not)");
    auto* json = sub->add_flag("--json", options->json, "With --summary: one JSON object");
    auto* report = sub->add_option("--report", options->report,
                                   "Write a self-contained HTML page for a reviewer to FILE (- "
                                   "for standard output): the verdict of --verify, a timeline of "
                                   "requests per host, the tables of --summary linked to the log "
                                   "lines they count (exit 1 when the log does not verify)");
    report->type_name("FILE");
    follow->excludes(verify)->excludes(summary)->excludes(report);
    raw->excludes(verify)->excludes(summary)->excludes(report);
    verify->excludes(summary)->excludes(report);
    summary->excludes(report);
    json->needs(summary);
    sub->callback([&context, options] {
        guarded(context, [&] {
            const std::string id = parse_sandbox_id(options->id);
            if (!options->verify && !options->summary && options->report.empty()) {
                context.backend.egress_log(id, context.out, options->follow, options->raw);
                return 0;
            }
            if (!options->report.empty()) check_report_file(options->report);
            const auto access = context.backend.egress_log_access(id);
            const auto copy = take_log_copy(*access, context.err, context.program);
            if (!options->report.empty())
                return write_log_report(copy, id, options->report, context.out, context.err);
            return report_log_copy(copy, id, options->summary, options->json, context.out,
                                   context.err);
        });
    });
}

void setup_gc(CLI::App& app, BackendContext& context) {
    auto dry_run = std::make_shared<bool>(false);
    auto save_logs = std::make_shared<std::string>();
    CLI::App* sub = app.add_subcommand("gc", context.texts.gc);
    sub->add_flag("--dry-run", *dry_run, "Only print what would be removed");
    sub->add_option("--save-logs", *save_logs,
                    "First save each sandbox's egress log to DIR/<ID>.jsonl (and its key to "
                    "DIR/<ID>.jsonl.pub), verified as destroy --save-log does; a sandbox whose "
                    "log cannot be saved or does not verify is not removed");
    sub->callback([&context, dry_run, save_logs] {
        guarded(context, [&] {
            if (!save_logs->empty()) check_log_directory(*save_logs);
            int failures = 0;
            for (const auto& removal : context.backend.gc_plan()) {
                if (const int signal = context.pending_signal ? context.pending_signal() : 0)
                    throw Interrupted(signal);
                if (!*dry_run) {
                    if (!save_logs->empty() &&
                        !keep_log_in(*save_logs, removal.id, context.err, context.program,
                                     [&](const std::string& path) {
                                         const auto access =
                                             context.backend.egress_log_access(removal.id);
                                         commands::save_log(*access, context.err, context.program,
                                                            path);
                                     })) {
                        ++failures;
                        continue;
                    }
                    try {
                        if (!context.backend.gc_remove(removal.id)) continue;
                    } catch (const Interrupted&) {
                        throw;
                    } catch (const std::exception& e) {
                        context.err << context.program << ": cannot remove " << removal.id << ": "
                                    << e.what() << "\n";
                        ++failures;
                        continue;
                    }
                }
                context.out << removal.id << " " << removal.reason << "\n" << std::flush;
            }
            return failures == 0 ? 0 : kExitFailure;
        });
    });
}

void setup_extend(CLI::App& app, BackendContext& context) {
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
                context.out << sandbox::rfc3339(context.backend.extend(
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

void setup_suspend(CLI::App& app, BackendContext& context) {
    auto id = std::make_shared<std::string>();
    CLI::App* sub = app.add_subcommand("suspend", context.texts.suspend);
    sub->add_option("id", *id, "The sandbox ID (12 hex digits)")->required();
    sub->callback([&context, id] {
        guarded(context, [&] {
            const std::string checked = parse_sandbox_id(*id);
            if (context.backend.suspend(checked) == sandbox::StateChange::AlreadyThere)
                context.err << "sandbox " << checked << " is already suspended\n";
            else
                context.err << "suspended sandbox " << checked << "\n";
            return 0;
        });
    });
}

void setup_resume(CLI::App& app, BackendContext& context) {
    auto id = std::make_shared<std::string>();
    CLI::App* sub = app.add_subcommand(
        "resume", "Start a suspended sandbox again, with the same files and a new egress proxy");
    sub->add_option("id", *id, "The sandbox ID (12 hex digits)")->required();
    sub->callback([&context, id] {
        guarded(context, [&] {
            const std::string checked = parse_sandbox_id(*id);
            if (context.backend.resume(checked, context.err) == sandbox::StateChange::AlreadyThere)
                context.err << "sandbox " << checked << " is not suspended\n";
            else
                context.err << "resumed sandbox " << checked << "\n";
            return 0;
        });
    });
}

} // namespace

void register_backend_commands(CLI::App& app, BackendContext& context) {
    app.require_subcommand(1);
    app.set_version_flag("--version", context.program + " " + OSF_VERSION);
    setup_create(app, context);
    setup_exec(app, context);
    setup_copy(app, context);
    setup_snapshot(app, context);
    setup_destroy(app, context);
    setup_list(app, context);
    setup_egress_log(app, context);
    setup_extend(app, context);
    setup_gc(app, context);
    setup_suspend(app, context);
    setup_resume(app, context);
}

int run_backend_cli(CLI::App& app, BackendContext& context, int argc, const char* const* argv) {
    if (const auto code =
            parse_cli(app, context.out, context.err, context.program + ": ", argc, argv))
        return *code;
    return context.exit_code;
}

} // namespace osf::commands
