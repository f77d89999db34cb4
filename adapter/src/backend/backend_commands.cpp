#include "backend/backend_commands.hpp"

#include "commands/command_errors.hpp"
#include "commands/copy_command.hpp"
#include "commands/exec_command.hpp"
#include "commands/interrupt.hpp"
#include "commands/register_commands.hpp"
#include "commands/sandbox_lookup.hpp"
#include "commands/sandbox_request_reader.hpp"
#include "commands/snapshot_command.hpp"
#include "manifests/lifetime.hpp"
#include "manifests/settings.hpp"
#include "osf/duration.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#ifndef OSF_VERSION
#define OSF_VERSION "dev"
#endif

namespace osf::backend {

using commands::UsageError;

namespace {

void guarded(BackendContext& context, const std::function<int()>& body) {
    context.exit_code = commands::report_errors(context.err, context.program, body);
}

// An option of sandbox-kubernetes this CLI does not have: parsed, so that the
// refusal is one line saying so and what to use instead (exit 2).
void refuse_option(const BackendContext& context, bool given, const std::string& option,
                   const std::string& instead) {
    if (given)
        throw UsageError(option + " is not available in " + context.program + " (" + instead + ")");
}

// Where the local proxy's files are, for the messages above.
constexpr const char* kLocalLog = "<state>/sandboxes/<ID>/proxy/egress.jsonl";

void setup_create(CLI::App& app, BackendContext& context) {
    auto spec = std::make_shared<std::string>();
    auto dry_run = std::make_shared<bool>(false);
    CLI::App* sub =
        app.add_subcommand("create", "Start a sandbox from a spec; prints its 12-hex-digit ID");
    sub->add_option("spec", *spec, "The sandbox spec (JSON)")->required();
    sub->add_flag("--dry-run", *dry_run, "Print what would be started (JSON) and start nothing");
    sub->callback([&context, spec, dry_run] {
        guarded(context, [&] {
            const auto request =
                commands::read_sandbox_request(*spec, context.getenv, context.file_exists,
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
    auto request = std::make_shared<ExecRequest>();
    auto timeout = std::make_shared<std::string>();
    CLI::App* sub = app.add_subcommand(
        "exec", "Run a command in the sandbox, in /workspace; exits with the command's exit code");
    sub->add_option("--timeout", *timeout,
                    "Stop the command after this long (90s, 10m, 2h; default "
                    "OSF_SANDBOX_EXEC_TIMEOUT or 1h) and exit 137");
    sub->add_option("id", request->id, "The sandbox ID (12 hex digits)")->required();
    sub->add_option("command", request->command, "The command and its arguments, after --")
        ->required();
    sub->callback([&context, request, timeout] {
        // Ctrl-C and SIGTERM are caught (interrupt.hpp): the backend then stops
        // the command and every process it started, and exec exits 130/143.
        guarded(context, [&] {
            ExecRequest checked = *request;
            checked.id = commands::parse_sandbox_id(request->id);
            if (checked.command.empty())
                throw UsageError("exec: no command given (exec <ID> -- <command>...)");
            checked.timeout =
                commands::exec_timeout(*timeout, manifests::read_settings(context.getenv));
            checked.terminal = context.terminal;
            context.out.flush();
            const ExecResult result = context.backend.exec(checked);
            if (!result.timed_out) return result.exit_code;
            context.err << context.program << ": "
                        << commands::exec_timed_out_message(checked.timeout) << "\n";
            return commands::kExitExecTimeout;
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
            const auto from = commands::parse_copy_endpoint(options->first);
            const auto to = commands::parse_copy_endpoint(options->second);
            if (from.id.has_value() == to.id.has_value())
                throw UsageError("copy: exactly one of <from> and <to> must be <ID>:<path>");
            if (from.path.empty() || to.path.empty()) throw UsageError("copy: empty path");
            CopyRequest request;
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
    CLI::App* sub = app.add_subcommand(
        "snapshot", "Keep a copy of /workspace; prints a template name a spec can start from");
    sub->add_option("id", *id, "The sandbox ID (12 hex digits)")->required();
    sub->callback([&context, id] {
        guarded(context, [&] {
            const std::string checked = commands::parse_sandbox_id(*id);
            context.out << context.backend.snapshot(checked,
                                                    commands::snapshot_stamp(context.wall_clock()))
                        << std::endl;
            return 0;
        });
    });
}

void setup_destroy(CLI::App& app, BackendContext& context) {
    auto id = std::make_shared<std::string>();
    CLI::App* sub = app.add_subcommand(
        "destroy", "Remove a sandbox and everything made for it (not its snapshots)");
    sub->add_option("id", *id, "The sandbox ID (12 hex digits)")->required();
    auto save_log = std::make_shared<std::string>();
    sub->add_option("--save-log", *save_log, "Not available here (sandbox-kubernetes only)");
    sub->callback([&context, id, save_log] {
        guarded(context, [&] {
            refuse_option(context, !save_log->empty(), "destroy --save-log",
                          std::string("copy ") + kLocalLog + " and its log-key.pub first");
            const std::string checked = commands::parse_sandbox_id(*id);
            context.backend.destroy(checked);
            context.err << "removed sandbox " << checked << "\n";
            return 0;
        });
    });
}

void setup_list(CLI::App& app, BackendContext& context) {
    auto output = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    CLI::App* sub =
        app.add_subcommand("list", "List the sandbox IDs, one per line (-o wide: a table)");
    sub->add_option("-o,--output", *output,
                    "wide: ID, STATUS, AGE, EXPIRES, IMAGE with a header; json: an array")
        ->check(CLI::IsMember({"wide", "json"}));
    sub->add_flag("--json", *json, "The same as -o json");
    sub->callback([&context, output, json] {
        guarded(context, [&] {
            const auto rows = context.backend.list();
            const std::string format = *json ? "json" : *output;
            if (format == "json")
                context.out << manifests::rows_json(rows).dump(2) << "\n";
            else if (format == "wide")
                context.out << manifests::wide_table(rows);
            else
                for (const auto& row : rows)
                    context.out << row.id << "\n";
            return 0;
        });
    });
}

void setup_egress_log(CLI::App& app, BackendContext& context) {
    auto id = std::make_shared<std::string>();
    CLI::App* sub = app.add_subcommand("egress-log", "Print the sandbox's egress log (JSON lines)");
    sub->add_option("id", *id, "The sandbox ID (12 hex digits)")->required();
    auto flags = std::make_shared<std::array<bool, 4>>();
    sub->add_flag("-f,--follow", (*flags)[0], "Not available here (sandbox-kubernetes only)");
    sub->add_flag("--verify", (*flags)[1], "Not available here (sandbox-kubernetes only)");
    sub->add_flag("--summary", (*flags)[2], "Not available here (sandbox-kubernetes only)");
    sub->add_flag("--json", (*flags)[3], "Not available here (sandbox-kubernetes only)");
    sub->callback([&context, id, flags] {
        guarded(context, [&] {
            refuse_option(context, (*flags)[0], "egress-log --follow",
                          std::string("tail -f ") + kLocalLog);
            refuse_option(context, (*flags)[1], "egress-log --verify",
                          std::string("egress-proxy log verify ") + kLocalLog);
            refuse_option(context, (*flags)[2] || (*flags)[3], "egress-log --summary",
                          std::string("egress-proxy log summary [--json] ") + kLocalLog);
            context.backend.egress_log(commands::parse_sandbox_id(*id), context.out);
            return 0;
        });
    });
}

void setup_gc(CLI::App& app, BackendContext& context) {
    auto dry_run = std::make_shared<bool>(false);
    CLI::App* sub = app.add_subcommand(
        "gc", "Remove sandboxes whose supervisor is gone and suspended sandboxes past their "
              "expiry; one line each: ID and why");
    sub->add_flag("--dry-run", *dry_run, "Only print what would be removed");
    auto save_logs = std::make_shared<std::string>();
    sub->add_option("--save-logs", *save_logs, "Not available here (sandbox-kubernetes only)");
    sub->callback([&context, dry_run, save_logs] {
        guarded(context, [&] {
            refuse_option(context, !save_logs->empty(), "gc --save-logs",
                          std::string("copy each ") + kLocalLog + " first");
            for (const auto& removal : context.backend.gc(*dry_run))
                context.out << removal.id << " " << removal.reason << "\n";
            return 0;
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
            const std::string id = commands::parse_sandbox_id(options->first);
            const auto parsed = osf::parse_duration(options->second);
            if (const auto* problem = std::get_if<std::string>(&parsed))
                throw UsageError("extend: '" + options->second + "' " + *problem);
            const auto settings = manifests::read_settings(context.getenv);
            try {
                context.out << manifests::rfc3339(context.backend.extend(
                                   id, std::get<std::chrono::seconds>(parsed),
                                   settings.max_lifetime))
                            << "\n";
            } catch (const manifests::LifetimeError& e) {
                throw UsageError(e.what());
            }
            return 0;
        });
    });
}

void setup_suspend(CLI::App& app, BackendContext& context) {
    auto id = std::make_shared<std::string>();
    CLI::App* sub = app.add_subcommand(
        "suspend", "Stop every process of a sandbox and keep its workspace (resume brings it "
                   "back)");
    sub->add_option("id", *id, "The sandbox ID (12 hex digits)")->required();
    sub->callback([&context, id] {
        guarded(context, [&] {
            const std::string checked = commands::parse_sandbox_id(*id);
            if (context.backend.suspend(checked) == StateChange::AlreadyThere)
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
            const std::string checked = commands::parse_sandbox_id(*id);
            if (context.backend.resume(checked, context.err) == StateChange::AlreadyThere)
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
            commands::parse_cli(app, context.out, context.err, context.program + ": ", argc, argv))
        return *code;
    return context.exit_code;
}

} // namespace osf::backend
