#include "egress_log/report_page.hpp"

#include "egress_log/log_chain.hpp"
#include "egress_log/log_verifier.hpp"
#include "egress_log/report_escaping.hpp"
#include "egress_log/report_style_sheet.hpp"
#include "egress_log/report_time.hpp"
#include "egress_log/report_timeline.hpp"
#include "osf/log_fields.hpp"

#include <algorithm>

namespace osf::egress_log {

namespace {

// Names in tables, and fields of the lines shown at the end, are cut to
// these many characters as shown (the log cuts hosts and tools at 1024
// bytes; a file the report reads may hold anything).
constexpr std::size_t name_chars = 512;
constexpr std::size_t field_chars = 96;
constexpr std::size_t entry_chars = 256; // of a policy change

std::string count(std::uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string plural(std::uint64_t n, const char* word) {
    return count(n) + " " + word + (n == 1 ? "" : "s");
}

std::string cell(const std::string& escaped, const char* cls = nullptr) {
    return cls ? std::string("<td class=\"") + cls + "\">" + escaped + "</td>"
               : "<td>" + escaped + "</td>";
}

std::string number_cell(std::uint64_t n, bool refused = false) {
    return cell(count(n), refused && n ? "n refused" : "n");
}

std::string name_cell(std::string_view name) {
    return cell("<code>" + escape_text(shown_name(name, name_chars)) + "</code>", "name");
}

std::string host_cell(std::string_view host) {
    return host.empty() ? cell("<em>(no host)</em>", "name") : name_cell(host);
}

// The lines a row counts, each range a link to its first line when that is shown below.
std::string lines_cell(const ReportModel& model, const LineRefs& refs) {
    std::string out;
    std::uint64_t listed = 0;
    for (const auto& r : refs.ranges) {
        if (!out.empty()) out += ", ";
        const std::string label =
            r.first == r.last ? std::to_string(r.first)
                              : std::to_string(r.first) + "\xe2\x80\x93" + std::to_string(r.last);
        out += is_shown(model, r.first)
                   ? "<a href=\"#L" + std::to_string(r.first) + "\">" + label + "</a>"
                   : label;
        listed += r.last - r.first + 1;
    }
    if (refs.lines > listed) out += ", \xe2\x80\xa6 (" + plural(refs.lines, "line") + " in all)";
    return cell(out, "lines");
}

std::string head_row(std::initializer_list<const char*> names) {
    std::string out = "<tr>";
    for (const char* name : names)
        out += std::string("<th>") + name + "</th>";
    return out + "</tr>\n";
}

template <class Row>
std::string left_out_row(const ReportTable<Row>& table, std::size_t columns, const char* rows,
                         const char* counted) {
    if (!table.rows_left_out) return {};
    return "<tr class=\"more\"><td colspan=\"" + std::to_string(columns) + "\">\xe2\x80\xa6 " +
           count(table.rows_left_out) + " more " + rows + " (" +
           plural(table.count_left_out, counted) +
           ") not shown: <code>log summary --json</code> lists every one</td></tr>\n";
}

std::string section(const char* id, const char* title, const std::string& body) {
    return std::string("<section id=\"") + id + "\"><h2>" + title + "</h2>\n" + body +
           "</section>\n";
}

std::string verdict_word(const egress_log::VerifyReport& v) {
    return v.ok ? "VERIFIED" : "NOT VERIFIED";
}

// One line saying what the verdict means, as the text summary's first line does.
std::string verdict_line(const egress_log::VerifyReport& v) {
    if (!v.ok)
        return (v.bad_line ? "line " + std::to_string(v.bad_line) + ": " : std::string()) +
               v.problem;
    std::string out;
    if (v.last_checkpoint)
        out = "signed through line " + count(v.last_checkpoint) + " of " + count(v.lines) +
              (v.trusted_key ? " by the given key"
                             : " by the key the log's own start line names (not checked against "
                               "a published key)");
    else
        out =
            "chain intact over " + plural(v.lines, "line") + ", nothing signed yet (no checkpoint)";
    if (v.last_checkpoint && v.last_checkpoint < v.lines)
        out += "; " + plural(v.lines - v.last_checkpoint, "unsigned line") + " after it";
    out += v.ends_final ? "; ended by the proxy's final checkpoint"
                        : "; not ended by a final checkpoint";
    return out;
}

// Green only when every line is signed by the given key; a log without its
// final checkpoint is green too (a running sandbox's copy, a saved one): the
// verdict says so in words.
std::string verdict_class(const egress_log::VerifyReport& v) {
    if (!v.ok) return "bad";
    const bool all_signed = v.last_checkpoint == v.lines && !v.torn_tail_bytes;
    return v.trusted_key && all_signed ? "ok" : "warn";
}

std::string render_verdict(const ReportModel& m) {
    const auto& v = m.verification;
    std::string out = "<header id=\"verdict\" class=\"verdict " + verdict_class(v) + "\">\n";
    out += "<p class=\"verdict-word\">" + verdict_word(v) + "</p>\n";
    out += "<p class=\"verdict-line\">" + escape_text(verdict_line(v)) + "</p>\n";
    out += "<pre id=\"verify\">" + escape_text(egress_log::describe(v, shown_source(m.source))) +
           "</pre>\n";
    if (const std::string key = signing_key(m); !key.empty() && v.ok)
        out += "<p class=\"key\">Signing key (Ed25519, base64): <code>" +
               escape_text(shown_name(key, 64)) + "</code>" +
               (v.trusted_key ? " \xe2\x80\x94 the given key"
                              : " \xe2\x80\x94 named by the log itself: anyone can write a log "
                                "consistent with itself; check it against the published key") +
               "</p>\n";
    return out + "</header>\n";
}

std::string render_overview(const ReportModel& m) {
    const auto& v = m.verification;
    std::string out = "<table class=\"overview\">\n";
    out +=
        "<tr><th>log</th><td><code>" + escape_text(shown_source(m.source)) + "</code></td></tr>\n";
    out += "<tr><th>time (UTC)</th><td>" +
           (m.requests ? escape_text(shown_name(m.first_time, 64)) + " to " +
                             escape_text(shown_name(m.last_time, 64))
                       : std::string("no requests")) +
           "</td></tr>\n";
    out += "<tr><th>requests</th><td>" + count(m.requests) + " (" + count(m.allowed) +
           " allowed, <span class=\"refused\">" + count(m.refused) + " refused</span>, " +
           count(m.errors) + " failed)</td></tr>\n";
    out += "<tr><th>lines</th><td>" + count(v.lines) + " (" + plural(m.runs.size(), "run") +
           " of the proxy, " + plural(v.checkpoints, "checkpoint") + " verified)</td></tr>\n";
    if (m.unreadable.lines)
        out += "<tr><th>unreadable lines</th><td>" + count(m.unreadable.lines) +
               " (not JSON objects; not counted)</td></tr>\n";
    return out + "</table>\n";
}

std::string render_timeline(const ReportModel& m) {
    const std::string svg = render_timeline_svg(m);
    if (svg.empty())
        return section("timeline", "Timeline", "<p>No request has a readable time.</p>\n");
    const auto& t = m.timeline;
    std::string body =
        "<p class=\"legend\">Requests per host, " +
        escape_text(describe_width(t.buckets.width_ms)) +
        " per bar, each lane scaled to its busiest bar (max N):<span class=\"allowed\"></span>"
        "allowed<span class=\"error\"></span>failed<span class=\"refused\"></span>refused (a "
        "red mark under the bar however few)";
    if (!m.policy.empty()) body += "<span class=\"policy\"></span>policy change";
    body += "</p>\n" + svg + "\n<p class=\"note\">From " +
            escape_text(format_date_time(t.buckets.start_ms)) + " UTC, " +
            plural(t.buckets.count, "bar") + ".";
    if (t.hosts_in_other_lane)
        body += " The " + plural(t.hosts_in_other_lane, "host") +
                " with fewest requests share the last lane.";
    if (t.untimed)
        body += " " + plural(t.untimed, "request") + " without a readable time are not drawn.";
    return section("timeline", "Timeline", body + "</p>\n");
}

std::string render_policy(const ReportModel& m) {
    if (m.policy.empty()) return {};
    std::string body = "<table>\n" + head_row({"", "time", "change", "entries", "by", "line"});
    for (std::size_t p = 0; p < m.policy.size(); ++p) {
        const auto& c = m.policy[p];
        std::string entries;
        for (const auto& e : c.entries)
            entries += (entries.empty() ? "" : "<br>") + std::string("<code>") +
                       escape_text(shown_name(e, entry_chars)) + "</code>";
        body += "<tr>" + cell("P" + std::to_string(p + 1)) +
                cell(escape_text(shown_name(c.time, 64))) +
                (c.change.empty() ? cell("<em>(not named)</em>") : name_cell(c.change)) +
                cell(entries) + (c.by.empty() ? cell("") : name_cell(c.by)) +
                cell(is_shown(m, c.line) ? "<a href=\"#L" + std::to_string(c.line) + "\">" +
                                               std::to_string(c.line) + "</a>"
                                         : std::to_string(c.line)) +
                "</tr>\n";
    }
    if (m.policy_left_out)
        body += "<tr class=\"more\"><td colspan=\"6\">\xe2\x80\xa6 " +
                plural(m.policy_left_out, "more policy change") + " not shown</td></tr>\n";
    return section("policy", "Policy changes", body + "</table>\n");
}

std::string render_hosts(const ReportModel& m) {
    if (m.hosts.rows.empty()) return section("hosts", "Hosts", "<p>None.</p>\n");
    std::string body = "<table>\n" + head_row({"requests", "allowed", "refused", "failed",
                                               "bytes up", "bytes down", "host", "lines"});
    for (const auto& row : m.hosts.rows) {
        const auto& h = row.counts;
        body += "<tr>" + number_cell(h.requests) + number_cell(h.allowed) +
                number_cell(h.refused, true) + number_cell(h.errors) + number_cell(h.bytes_up) +
                number_cell(h.bytes_down) + host_cell(row.host) + lines_cell(m, row.lines) +
                "</tr>\n";
    }
    body += left_out_row(m.hosts, 8, "hosts", "request");
    return section("hosts", "Hosts", body + "</table>\n");
}

std::string render_counts(const ReportModel& m, const ReportTable<CountRow>& table, const char* id,
                          const char* title, const char* what, bool refused) {
    if (table.rows.empty()) return section(id, title, "<p>None.</p>\n");
    std::string body = "<table>\n" + head_row({"count", what, "host", "lines"});
    for (const auto& row : table.rows)
        body += "<tr>" + number_cell(row.count, refused) +
                (row.name.empty() ? cell("<em>(not named)</em>") : name_cell(row.name)) +
                host_cell(row.host) + lines_cell(m, row.lines) + "</tr>\n";
    body += left_out_row(table, 4, "rows", "line");
    return section(id, title, body + "</table>\n");
}

std::string render_tools(const ReportModel& m) {
    if (m.tools.rows.empty()) return section("mcp", "MCP tools", "<p>None.</p>\n");
    std::string body = "<table>\n" + head_row({"server", "tool", "called", "refused",
                                               "hidden from tools/list", "lines"});
    for (const auto& row : m.tools.rows)
        body += "<tr>" + name_cell(row.server) +
                (row.tool.empty() ? cell("<em>(tools/list answers)</em>") : name_cell(row.tool)) +
                number_cell(row.called) + number_cell(row.refused, true) + number_cell(row.hidden) +
                lines_cell(m, row.lines) + "</tr>\n";
    body += left_out_row(m.tools, 6, "tools", "call");
    return section("mcp", "MCP tools", body + "</table>\n");
}

std::string render_other(const ReportModel& m) {
    if (m.other_kinds.empty() && !m.unreadable.lines) return {};
    std::string body = "<p>Lines this report does not read; they are counted nowhere else. "
                       "<code>log verify</code> says whether they belong to the chain.</p>\n"
                       "<table>\n" +
                       head_row({"lines", "kind", "line numbers"});
    for (const auto& row : m.other_kinds)
        body += "<tr>" + number_cell(row.lines.lines) + name_cell(row.kind) +
                lines_cell(m, row.lines) + "</tr>\n";
    if (m.other_kinds_left_out)
        body += "<tr class=\"more\"><td colspan=\"3\">\xe2\x80\xa6 " +
                plural(m.other_kinds_left_out, "more line") + " of other kinds</td></tr>\n";
    if (m.unreadable.lines)
        body += "<tr>" + number_cell(m.unreadable.lines) + cell("<em>(not a JSON object)</em>") +
                lines_cell(m, m.unreadable) + "</tr>\n";
    return section("other", "Other lines", body + "</table>\n");
}

std::string field(std::string_view value) {
    return "<code>" + escape_text(shown_name(value, field_chars)) + "</code>";
}

std::string render_shown_lines(const ReportModel& m) {
    if (m.shown_lines.empty()) return {};
    std::string body = "<p>The lines the rows above link to (at most " +
                       count(m.limits.shown_lines) + ", at most " +
                       count(m.limits.lines_per_range) +
                       " of each range). Any line of the file: <code>sed -n 'Np' FILE</code>.</p>\n"
                       "<table class=\"log-lines\">\n" +
                       head_row({"line", "time", "outcome", "request", "details"});
    std::size_t previous = 0;
    for (const auto& l : m.shown_lines) {
        if (previous && l.number > previous + 1)
            body += "<tr class=\"more\"><td colspan=\"5\">" +
                    (l.number - 1 > previous + 1 ? "lines " + std::to_string(previous + 1) +
                                                       "\xe2\x80\x93" + std::to_string(l.number - 1)
                                                 : "line " + std::to_string(previous + 1)) +
                    " not shown</td></tr>\n";
        previous = l.number;
        body += "<tr id=\"L" + std::to_string(l.number) + "\">" + cell(std::to_string(l.number)) +
                cell(escape_text(shown_name(l.time, 64)), "t");
        if (!l.request) {
            body += cell(l.kind.empty() ? "<em>(not a JSON object)</em>"
                                        : "<em>kind</em> " + field(l.kind)) +
                    "<td colspan=\"2\" class=\"name\"><code>" +
                    escape_text(visible_line(l.raw, max_raw_bytes)) + "</code></td></tr>\n";
            continue;
        }
        const bool refused = l.outcome == to_string(osf::Outcome::refused);
        std::string outcome =
            escape_text(shown_name(l.outcome, 32)) + " " + std::to_string(l.status);
        if (!l.reason.empty()) outcome += " " + field(l.reason);
        std::string request = field(l.method) + " " +
                              (l.host.empty() ? std::string("<em>(no host)</em>") : field(l.host)) +
                              ":" + std::to_string(l.port) +
                              (l.path.empty() ? "" : " " + field(l.path));
        std::string details;
        if (!l.server.empty()) details += "MCP " + field(l.server);
        if (!l.tool.empty()) details += " tool " + field(l.tool);
        if (!l.secrets.empty()) {
            details += (details.empty() ? "" : "; ") + std::string("secrets");
            for (const auto& s : l.secrets)
                details += " " + field(s);
        }
        body += cell(outcome, refused ? "refused" : nullptr) + cell(request, "name") +
                cell(details, "name") + "</tr>\n";
    }
    return section("lines", "Log lines", body + "</table>\n");
}

std::string render_footer(const ReportModel& m) {
    const auto& l = m.limits;
    return "<footer><p class=\"note\">Made by <code>egress-proxy log report</code>. Names from "
           "the log (hosts, paths, tools, servers) were chosen by code in the sandbox: they are "
           "shown as <code>log summary</code> shows them, bare when plain printable ASCII, else "
           "quoted with control bytes as <code>\\xNN</code> and every non-ASCII character as "
           "<code>\\u{X}</code>. Bounds: " +
           count(l.table_rows) + " rows per table, " + count(l.ranges_per_row) +
           " line ranges per row, " + count(l.timeline_lanes) + " host lanes, " +
           count(l.timeline_buckets) + " bars per lane, " + count(l.shown_lines) +
           " log lines shown.</p></footer>\n";
}

} // namespace

std::string report_content_security_policy() {
    const auto digest = egress_log::sha256(report_style_sheet);
    return "default-src 'none'; style-src 'sha256-" +
           egress_log::base64_encode(
               std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size())) +
           "'; base-uri 'none'; form-action 'none'";
}

std::string render_report_page(const ReportModel& m) {
    std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                       "<meta http-equiv=\"Content-Security-Policy\" content=\"" +
                       escape_attribute(report_content_security_policy()) +
                       "\">\n<meta name=\"referrer\" content=\"no-referrer\">\n"
                       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                       "<title>" +
                       escape_text(verdict_word(m.verification)) + ": egress log report of " +
                       escape_text(shown_source(m.source)) + "</title>\n<style>" +
                       std::string(report_style_sheet) + "</style>\n</head>\n<body>\n";
    page += render_verdict(m);
    page += "<main>\n";
    page += section("overview", "Overview", render_overview(m));
    page += render_timeline(m);
    page += render_policy(m);
    page += render_hosts(m);
    page += render_counts(m, m.refusals, "refusals", "Refusals", "reason", true);
    page += render_counts(m, m.failures, "failures", "Failures", "error", false);
    page += render_counts(m, m.secrets, "secrets", "Secrets used", "secret", false);
    if (!m.rules.rows.empty())
        page += render_counts(m, m.rules, "rules", "Egress rules", "rule: decision", false);
    if (!m.tunnels.rows.empty())
        page += render_counts(m, m.tunnels, "tcp", "TCP tunnels", "port, way in: outcome", false);
    page += render_tools(m);
    page += render_other(m);
    page += render_shown_lines(m);
    page += "</main>\n";
    page += render_footer(m);
    return page + "</body>\n</html>\n";
}

std::string render_report(std::string_view text, const egress_log::VerifyReport& verification,
                          std::string_view source) {
    return render_report_page(build_report(text, verification, source));
}

} // namespace osf::egress_log
