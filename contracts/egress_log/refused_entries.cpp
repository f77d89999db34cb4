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
    if (entry.empty() || !seen_.insert(entry).second) return std::nullopt;
    return entry;
}

} // namespace osf::egress_log
