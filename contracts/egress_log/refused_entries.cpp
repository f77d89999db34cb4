#include "egress_log/refused_entries.hpp"

#include "egress_log/line_fields.hpp"
#include "egress_log/log_summary.hpp"
#include "osf/log_fields.hpp"

#include <nlohmann/json.hpp>

namespace osf::egress_log {

namespace {

// Names the sandbox chose are shown through display_label: a line break or a
// terminal escape in one cannot make a line of its own (or an argument of an
// orchestrator's `allow`); such a name comes out quoted, for a person to read.

// A host as an entry: the name alone for the web's ports (an entry without a
// port allows every port), host:port for any other.
std::string entry_for(const std::string& host, std::uint64_t port, bool port_needed) {
    if (!port_needed && (port == 443 || port == 80 || port == 0)) return display_label(host);
    return display_label(host) + ":" + std::to_string(port);
}

// Advice lines start with "# ": for a person to act on, never an argument of
// `allow` (an orchestrator passing one on gets exit 2, a bad entry, not a
// change). A refusal by a host's rules: the rule that would let the request through,
// and where it goes among the entry's rules (before the one that refused, for
// a deny rule matches first). A path the proxy could not read one way cannot
// be allowed by any rule. Method and path come from the line, written as JSON
// (a terminal escape in them stays escaped).
std::string rule_advice(const std::string& entry, const nlohmann::json& line) {
    namespace f = osf::log_field;
    const std::string method = text_of(line, f::method), path = text_of(line, f::path),
                      rule = text_of(line, f::rule), reason = text_of(line, f::refused_by);
    if (method.empty() || path.empty()) return {};
    const std::string request = display_label(method) + " " + display_label(path);
    if (rule.ends_with("#path"))
        return "# " + entry + ": " + request +
               " cannot be allowed by a rule: its path reads more than " + "one way (" + reason +
               ")";
    const nlohmann::ordered_json allowing = {
        {"methods", {method}}, {"paths", {path}}, {"allow", true}};
    std::string where = rule.empty() || rule.ends_with("#none")
                            ? "to its rules (no rule matched " + request + ")"
                            : "to its rules before " + display_label(rule) + " (it refused " +
                                  request + ": " + reason + ")";
    return "# " + entry + ": add " + allowing.dump() + " " + where;
}

// A tools/call whose arguments a rule refused: the log names the rule, never
// the values, so the advice is which rule to widen.
std::string argument_advice(const nlohmann::json& line) {
    namespace f = osf::log_field;
    const std::string server = text_of(line, f::mcp_server), tool = text_of(line, f::tool),
                      rule = text_of(line, f::rule);
    if (server.empty() || tool.empty() || rule.empty()) return {};
    return "# --mcp " + display_label(server + ":" + tool) + ": widen its argument rule " +
           display_label(rule) + " (the log holds no argument values)";
}

} // namespace

std::optional<std::string> RefusedEntries::add(std::string_view text) {
    namespace f = osf::log_field;
    const auto line = nlohmann::json::parse(text, nullptr, false);
    if (!line.is_object() || line.contains(osf::log_evidence_field::kind) ||
        text_of(line, f::outcome) != to_string(osf::Outcome::refused))
        return std::nullopt;
    const std::string reason = text_of(line, f::refused_by);
    const std::string host = text_of(line, f::host);
    const auto port_field = line.find(f::port);
    const std::uint64_t port = port_field != line.end() && port_field->is_number_unsigned()
                                   ? port_field->get<std::uint64_t>()
                                   : 0;
    std::string entry;
    if (reason == to_string(osf::RefusalReason::host_not_allowed) && !host.empty())
        entry = entry_for(host, port, false);
    else if (reason == to_string(osf::RefusalReason::port_not_allowed) && !host.empty())
        entry = entry_for(host, port, true);
    else if (reason == to_string(osf::RefusalReason::tcp_destination_not_allowed) &&
             !host.empty() && port != 0)
        entry = "tcp:" + display_label(host) + ":" + std::to_string(port);
    else if (reason == to_string(osf::RefusalReason::mcp_tool) &&
             !text_of(line, f::mcp_server).empty() && !text_of(line, f::tool).empty())
        entry =
            "--mcp " + display_label(text_of(line, f::mcp_server) + ":" + text_of(line, f::tool));
    else if ((reason == to_string(osf::RefusalReason::method_not_allowed) ||
              reason == to_string(osf::RefusalReason::path_not_allowed)) &&
             !host.empty())
        entry = rule_advice(entry_for(host, port, false), line);
    else if (reason == to_string(osf::RefusalReason::tool_argument_not_allowed))
        entry = argument_advice(line);
    if (entry.empty() || !seen_.insert(entry).second) return std::nullopt;
    return entry;
}

} // namespace osf::egress_log
