
#include "commands/egress_log_copy.hpp"
#include "commands/egress_log_options.hpp"
#include "commands/line_stream.hpp"
#include "commands/log_saving.hpp"
#include "commands/sandbox_id_argument.hpp"
#include "commands/subcommands.hpp"
#include "egress_log/refused_entries.hpp"
#include "egress_log/spec_suggestion.hpp"

#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

namespace osf::commands {

void setup_egress_log(CLI::App& app, CommandContext& context) {
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
    auto* refused = sub->add_flag(
        "--refused", options->refused,
        "Print what the sandbox was refused, one line each and once: the egress entry or MCP "
        "tool (--mcp SERVER:TOOL) that would have let it through, as allow takes it; with "
        "--follow, then each new one as it is refused");
    refused->excludes(raw)->excludes(verify)->excludes(summary)->excludes(report);
    auto* suggest = sub->add_flag(
        "--suggest", options->suggest,
        "Print the tightest spec egress (and MCP tools) that would have let through what the "
        "log shows: hosts, rules by method and path generalised where a segment varies; for a "
        "person to review before a new sandbox uses it");
    suggest->excludes(raw)
        ->excludes(verify)
        ->excludes(summary)
        ->excludes(report)
        ->excludes(refused)
        ->excludes(follow);
    sub->callback([&context, options] {
        guarded(context, [&] {
            const std::string id = parse_sandbox_id(options->id);
            if (options->refused && options->follow) {
                // The log's request lines as the backend streams them, until the
                // sandbox stops or a signal comes; each new entry flushed at
                // once, for an orchestrator reading line by line.
                osf::egress_log::RefusedEntries entries;
                LineStream lines([&](std::string_view line) {
                    if (const auto entry = entries.add(line))
                        context.out << *entry << "\n" << std::flush;
                    return static_cast<bool>(context.out);
                });
                context.backend->egress_log(id, lines, true, false);
                lines.finish();
                return 0;
            }
            if (options->suggest) {
                const auto access = context.backend->egress_log_access(id);
                const auto copy = take_log_copy(*access, context.err, context.program);
                osf::egress_log::SpecSuggestion suggestion;
                std::istringstream lines(copy.text);
                for (std::string line; std::getline(lines, line);)
                    suggestion.add(line);
                context.out << suggestion.spec().dump(2) << "\n";
                return 0;
            }
            if (options->refused) {
                // The whole log as both backends hand it over (the copy --verify reads).
                const auto access = context.backend->egress_log_access(id);
                const auto copy = take_log_copy(*access, context.err, context.program);
                osf::egress_log::RefusedEntries entries;
                std::istringstream lines(copy.text);
                for (std::string line; std::getline(lines, line);)
                    if (const auto entry = entries.add(line)) context.out << *entry << "\n";
                return 0;
            }
            if (!options->verify && !options->summary && options->report.empty()) {
                context.backend->egress_log(id, context.out, options->follow, options->raw);
                return 0;
            }
            if (!options->report.empty()) check_report_file(options->report);
            const auto access = context.backend->egress_log_access(id);
            const auto copy = take_log_copy(*access, context.err, context.program);
            if (!options->report.empty())
                return write_log_report(copy, id, options->report, context.out, context.err);
            return report_log_copy(copy, id, options->summary, options->json, context.out,
                                   context.err);
        });
    });
}

} // namespace osf::commands
