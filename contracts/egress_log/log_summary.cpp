#include "egress_log/log_summary.hpp"

#include "egress_log/line_fields.hpp"
#include "osf/log_fields.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

namespace osf::egress_log {

using nlohmann::json;

namespace {

// Entries of a map, biggest count first, then by name.
template <class Map, class Count>
std::vector<typename Map::const_iterator> biggest_first(const Map& map, Count count) {
    std::vector<typename Map::const_iterator> order;
    for (auto it = map.begin(); it != map.end(); ++it)
        order.push_back(it);
    std::stable_sort(order.begin(), order.end(),
                     [&](auto a, auto b) { return count(a->second) > count(b->second); });
    return order;
}

std::string pad_left(std::string text, std::size_t width) {
    if (text.size() < width) text.insert(0, width - text.size(), ' ');
    return text;
}

std::string host_label(const std::string& host) {
    return host.empty() ? "(no host)" : display_label(host);
}

bool bare_label_byte(unsigned char c) {
    return c > 0x20 && c < 0x7f && c != '"' && c != '\\' && c != ';';
}

// The code point of the UTF-8 sequence at `text[i]`, and its length; an
// invalid sequence is one byte (the log's strings are JSON, so valid, but the
// summary may read any file).
std::pair<std::uint32_t, std::size_t> decode_utf8(std::string_view text, std::size_t i) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (length == 1 || i + length > text.size()) return {lead, 1};
    std::uint32_t code = lead & (0x3f >> (length - 1));
    for (std::size_t k = 1; k < length; ++k) {
        const auto next = static_cast<unsigned char>(text[i + k]);
        if ((next & 0xc0) != 0x80) return {lead, 1};
        code = (code << 6) | (next & 0x3f);
    }
    return {code, length};
}

std::uint64_t total(const std::map<std::string, std::uint64_t>& by) {
    std::uint64_t sum = 0;
    for (const auto& [_, n] : by)
        sum += n;
    return sum;
}

void render_counts_by_host(std::string& out, const CountsByHost& table, const char* title,
                           const char* empty) {
    out += title;
    if (table.empty()) {
        out += std::string(" ") + empty + "\n";
        return;
    }
    out += "\n";
    for (auto it : biggest_first(table, total))
        for (auto host : biggest_first(it->second, [](std::uint64_t n) { return n; }))
            out += pad_left(std::to_string(host->second), 8) + "  " + display_label(it->first) +
                   "  " + host_label(host->first) + "\n";
}

json counts_by_host_json(const CountsByHost& table, const char* key) {
    json out = json::array();
    for (const auto& [name, hosts] : table)
        for (const auto& [host, n] : hosts)
            out.push_back({{key, name}, {"host", host}, {"count", n}});
    return out;
}

} // namespace

std::string display_label(std::string_view name) {
    if (!name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
            return bare_label_byte(static_cast<unsigned char>(c));
        }))
        return std::string(name);
    static constexpr char hex[] = "0123456789abcdef";
    std::string out = "\"";
    for (std::size_t i = 0; i < name.size();) {
        const auto c = static_cast<unsigned char>(name[i]);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
            ++i;
        } else if (c < 0x20 || c == 0x7f) {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 0xf];
            ++i;
        } else if (c < 0x80) {
            out += static_cast<char>(c);
            ++i;
        } else {
            const auto [code, length] = decode_utf8(name, i);
            char digits[16];
            std::snprintf(digits, sizeof digits, "\\u{%x}", static_cast<unsigned>(code));
            out += digits;
            i += length;
        }
    }
    out += '"';
    return out;
}

LogSummary summarise_log(std::string_view text, const VerifyReport& verification) {
    namespace f = osf::log_field;
    LogSummary s;
    s.verification = verification;
    std::size_t number = 0;
    for (const auto raw : whole_lines(text)) {
        ++number;
        const json line = json::parse(raw, nullptr, false);
        if (!line.is_object()) {
            ++s.unreadable_lines;
            continue;
        }
        if (text_of(line, osf::log_evidence_field::kind) == osf::log_kind::policy) {
            namespace p = osf::policy_field;
            PolicyChangeCounts change{number,
                                      text_of(line, f::time),
                                      text_of(line, p::change),
                                      text_of(line, p::by),
                                      strings_of(line, p::entries),
                                      strings_of(line, p::tools),
                                      count_of(line, p::generation),
                                      s.requests,
                                      0,
                                      text_of(line, p::secret)};
            s.policy_changes.push_back(std::move(change));
            continue;
        }
        if (line.contains(osf::log_evidence_field::kind)) continue;
        // A folded line stands for `count` requests (contracts/egress-log.schema.json).
        const std::uint64_t n = std::max<std::uint64_t>(1, count_of(line, f::count));
        s.requests += n;
        const std::string time = text_of(line, f::time);
        const std::string since = text_of(line, f::since);
        if (!since.empty() && (s.first_time.empty() || since < s.first_time)) s.first_time = since;
        if (!time.empty()) { // RFC 3339 UTC with a fixed width: text order is time order
            if (s.first_time.empty() || time < s.first_time) s.first_time = time;
            if (time > s.last_time) s.last_time = time;
        }
        const std::string host = text_of(line, f::host);
        const std::string outcome = text_of(line, f::outcome);
        auto& h = s.hosts[host];
        h.requests += n;
        h.bytes_up += count_of(line, f::bytes_up);
        h.bytes_down += count_of(line, f::bytes_down);
        if (outcome == to_string(osf::Outcome::allowed)) {
            h.allowed += n;
            s.allowed += n;
            if (const auto generation = count_of(line, f::policy))
                for (auto& change : s.policy_changes)
                    if (change.generation == generation && change.secret.empty())
                        change.allowed_under += n;
        } else if (outcome == to_string(osf::Outcome::refused)) {
            h.refused += n;
            s.refused += n;
            s.refusals[text_of(line, f::refused_by)][host] += n;
        } else {
            h.errors += n;
            s.errors += n;
            s.failures[text_of(line, f::error)][host] += n;
        }
        if (const std::string rule = text_of(line, f::rule); !rule.empty())
            s.rules[rule][outcome == to_string(osf::Outcome::refused) ? text_of(line, f::refused_by)
                          : line.contains(f::would_refuse)
                              ? "audit:" + text_of(line, f::would_refuse)
                              : outcome] += n;
        if (const auto secrets = line.find(f::secrets);
            secrets != line.end() && secrets->is_array())
            for (const auto& name : *secrets)
                if (name.is_string()) s.secrets[name.get<std::string>()][host] += n;
        if (text_of(line, f::scheme) == "tcp") {
            auto& t = s.tcp[host + ":" + std::to_string(count_of(line, f::port))];
            t.tunnels += n;
            t.bytes_up += count_of(line, f::bytes_up);
            t.bytes_down += count_of(line, f::bytes_down);
            (outcome == to_string(osf::Outcome::allowed)   ? t.allowed
             : outcome == to_string(osf::Outcome::refused) ? t.refused
                                                           : t.errors) += n;
            if (const std::string via = text_of(line, f::via); !via.empty()) t.via[via] += n;
        }
        const std::string server = text_of(line, f::mcp_server);
        if (!server.empty()) {
            auto& m = s.mcp[server];
            m.tools_removed += count_of(line, f::tools_removed);
            const std::string tool = text_of(line, f::tool);
            if (!tool.empty()) {
                if (outcome == to_string(osf::Outcome::refused))
                    m.refused[tool] += n;
                else
                    m.called[tool] += n;
            }
        }
    }
    return s;
}

std::string render_text(const LogSummary& s) {
    std::string out;
    const auto& v = s.verification;
    out += "chain: ";
    if (!v.ok) {
        out += "NOT VERIFIED: " +
               (v.bad_line ? "line " + std::to_string(v.bad_line) + ": " : std::string()) +
               v.problem + "\n";
    } else {
        out += "verified, " + std::to_string(v.lines) + " lines";
        if (v.last_checkpoint)
            out += ", signed through line " + std::to_string(v.last_checkpoint) +
                   (v.trusted_key ? " by the given key" : " (key named by the log itself)");
        else
            out += ", no checkpoint yet";
        if (v.last_checkpoint < v.lines)
            out += ", " + std::to_string(v.lines - v.last_checkpoint) +
                   " unsigned line(s) after the last checkpoint";
        out += v.ends_final ? ", ended by the final checkpoint\n" : ", no final checkpoint\n";
    }
    out += "time: ";
    out += s.requests ? s.first_time + " to " + s.last_time : std::string("no requests");
    out += "\nrequests: " + std::to_string(s.requests) + " (" + std::to_string(s.allowed) +
           " allowed, " + std::to_string(s.refused) + " refused, " + std::to_string(s.errors) +
           " failed)\n";
    if (s.unreadable_lines)
        out += "unreadable lines (not counted): " + std::to_string(s.unreadable_lines) + "\n";

    out += "\npolicy changes:";
    if (s.policy_changes.empty())
        out += " none (the spec's policy throughout)\n";
    else
        out += "\n";
    for (const auto& c : s.policy_changes) {
        out += "  line " + std::to_string(c.line) + "  " + c.time + "  " + display_label(c.change) +
               " by " + display_label(c.by) + ":";
        for (const auto& entry : c.entries)
            out += " " + host_label(entry);
        for (const auto& tool : c.tools)
            out += " tool " + display_label(tool);
        if (!c.secret.empty()) {
            out += " secret " + display_label(c.secret) + " (after " +
                   std::to_string(c.requests_before) + " requests)\n";
            continue;
        }
        out += " (after " + std::to_string(c.requests_before) + " requests; policy " +
               std::to_string(c.generation) + " then admitted " + std::to_string(c.allowed_under) +
               " allowed requests)\n";
    }
    out += "\nhosts:";
    if (s.hosts.empty()) {
        out += " none\n";
    } else {
        out += "\n  requests   allowed   refused    failed    bytes up  bytes down  host\n";
        for (auto it : biggest_first(s.hosts, [](const HostCounts& h) { return h.requests; })) {
            const auto& h = it->second;
            out +=
                pad_left(std::to_string(h.requests), 10) + pad_left(std::to_string(h.allowed), 10) +
                pad_left(std::to_string(h.refused), 10) + pad_left(std::to_string(h.errors), 10) +
                pad_left(std::to_string(h.bytes_up), 12) +
                pad_left(std::to_string(h.bytes_down), 12) + "  " + host_label(it->first) + "\n";
        }
    }
    out += "\n";
    render_counts_by_host(out, s.refusals, "refusals (count, reason, host):", "none");
    out += "\n";
    render_counts_by_host(out, s.failures, "failures (count, error, host):", "none");
    out += "\n";
    render_counts_by_host(out, s.secrets, "secrets used (count, secret, host):", "none");
    out += "\n";
    // Same layout: the decision stands where the host does.
    render_counts_by_host(out, s.rules, "egress rules (count, rule, decision):", "none");
    out += "\ntcp tunnels:";
    if (s.tcp.empty()) {
        out += " none\n";
    } else {
        out += "\n   tunnels   allowed   refused    failed    bytes up  bytes down  destination "
               "(via)\n";
        for (auto it : biggest_first(s.tcp, [](const TunnelCounts& t) { return t.tunnels; })) {
            const auto& t = it->second;
            std::string via;
            for (const auto& [way, n] : t.via)
                via += (via.empty() ? "" : ", ") + display_label(way) + " " + std::to_string(n);
            out +=
                pad_left(std::to_string(t.tunnels), 10) + pad_left(std::to_string(t.allowed), 10) +
                pad_left(std::to_string(t.refused), 10) + pad_left(std::to_string(t.errors), 10) +
                pad_left(std::to_string(t.bytes_up), 12) +
                pad_left(std::to_string(t.bytes_down), 12) + "  " + host_label(it->first) +
                (via.empty() ? "" : " (" + via + ")") + "\n";
        }
    }
    out += "\nMCP tools:";
    if (s.mcp.empty())
        out += " none\n";
    else
        out += "\n";
    for (const auto& [server, m] : s.mcp) {
        out += "  " + display_label(server) + ":";
        if (m.called.empty() && m.refused.empty()) out += " no tools/call";
        for (const auto& [tool, n] : m.called)
            out += " " + display_label(tool) + " called " + std::to_string(n) + ";";
        for (const auto& [tool, n] : m.refused)
            out += " " + display_label(tool) + " REFUSED " + std::to_string(n) + ";";
        if (m.tools_removed)
            out += " " + std::to_string(m.tools_removed) + " tool(s) hidden from tools/list";
        if (out.back() == ';') out.pop_back();
        out += "\n";
    }
    return out;
}

json render_json(const LogSummary& s) {
    const auto& v = s.verification;
    json verification = {{"ok", v.ok},
                         {"lines", v.lines},
                         {"runs", v.runs},
                         {"checkpoints", v.checkpoints},
                         {"signedThrough", v.last_checkpoint},
                         {"unsignedLines", v.lines - std::min(v.lines, v.last_checkpoint)},
                         {"trustedKey", v.trusted_key},
                         {"final", v.ends_final},
                         {"tornTailBytes", v.torn_tail_bytes}};
    if (!v.ok) {
        verification["badLine"] = v.bad_line;
        verification["problem"] = v.problem;
    }
    json hosts = json::array();
    for (const auto& [host, h] : s.hosts)
        hosts.push_back({{"host", host},
                         {"requests", h.requests},
                         {"allowed", h.allowed},
                         {"refused", h.refused},
                         {"errors", h.errors},
                         {"bytesUp", h.bytes_up},
                         {"bytesDown", h.bytes_down}});
    json mcp = json::array();
    for (const auto& [server, m] : s.mcp)
        mcp.push_back({{"server", server},
                       {"called", m.called},
                       {"refused", m.refused},
                       {"toolsRemoved", m.tools_removed}});
    json tcp = json::array();
    for (const auto& [destination, t] : s.tcp)
        tcp.push_back({{"destination", destination},
                       {"tunnels", t.tunnels},
                       {"allowed", t.allowed},
                       {"refused", t.refused},
                       {"errors", t.errors},
                       {"bytesUp", t.bytes_up},
                       {"bytesDown", t.bytes_down},
                       {"via", t.via}});
    json policy_changes = json::array();
    for (const auto& c : s.policy_changes) {
        json change = {{"line", c.line},
                       {"time", c.time},
                       {"change", c.change},
                       {"entries", c.entries},
                       {"tools", c.tools},
                       {"by", c.by},
                       {"generation", c.generation},
                       {"requestsBefore", c.requests_before},
                       {"allowedUnder", c.allowed_under}};
        if (!c.secret.empty()) change["secret"] = c.secret;
        policy_changes.push_back(std::move(change));
    }
    json rules = json::array();
    for (const auto& [rule, decisions] : s.rules)
        for (const auto& [decision, n] : decisions)
            rules.push_back({{"rule", rule}, {"decision", decision}, {"count", n}});
    json time = json::object();
    if (s.requests) time = {{"first", s.first_time}, {"last", s.last_time}};
    return {{"verification", verification},
            {"time", time},
            {"requests",
             {{"total", s.requests},
              {"allowed", s.allowed},
              {"refused", s.refused},
              {"errors", s.errors}}},
            {"unreadableLines", s.unreadable_lines},
            {"hosts", hosts},
            {"refusals", counts_by_host_json(s.refusals, "reason")},
            {"errors", counts_by_host_json(s.failures, "error")},
            {"secrets", counts_by_host_json(s.secrets, "secret")},
            {"rules", rules},
            {"mcp", mcp},
            {"tcpTunnels", tcp},
            {"policyChanges", policy_changes}};
}

} // namespace osf::egress_log
