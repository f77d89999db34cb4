#include "egress_log/spec_suggestion.hpp"

#include "egress_log/line_fields.hpp"
#include "osf/log_fields.hpp"

#include <algorithm>

namespace osf::egress_log {

namespace {

bool pattern_char(char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
    return std::string_view("-._~!$&'()+,;=:@").find(c) != std::string_view::npos;
}

// "/a/b/" -> {"a", "b", ""}: the trailing slash kept as an empty last segment.
std::vector<std::string> segments_of(std::string_view path) {
    std::vector<std::string> out;
    if (path.empty() || path == "/") return out;
    std::size_t start = 1;
    for (;;) {
        const auto slash = path.find('/', start);
        out.emplace_back(path.substr(start, slash - start));
        if (slash == std::string_view::npos) break;
        start = slash + 1;
    }
    return out;
}

std::string joined(const std::vector<std::string>& segments) {
    std::string out;
    for (const auto& s : segments)
        out += "/" + s;
    return out.empty() ? "/" : out;
}

bool holds_digit(const std::string& s) {
    return std::any_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A segment the pattern grammar holds as written, or '*'. Empty, "." and ".."
// segments (a path the proxy refuses on a host with rules) become '*' too.
std::string as_pattern_segment(const std::string& segment, bool last) {
    if (segment.empty()) return last ? segment : "*";
    if (segment == "." || segment == ".." || segment == "*") return "*";
    return std::all_of(segment.begin(), segment.end(), pattern_char) ? segment : "*";
}

} // namespace

std::vector<std::string> SpecSuggestion::generalise(const std::set<std::string>& paths,
                                                    std::size_t max_patterns) {
    std::set<std::vector<std::string>> current;
    for (const auto& path : paths) {
        auto segments = segments_of(path);
        for (std::size_t i = 0; i < segments.size(); ++i)
            segments[i] = as_pattern_segment(segments[i], i + 1 == segments.size());
        current.insert(std::move(segments));
    }
    // One place at a time, left to right: paths equal but there are grouped.
    bool changed = true;
    for (int round = 0; changed && round < 16; ++round) {
        changed = false;
        std::size_t longest = 0;
        for (const auto& p : current)
            longest = std::max(longest, p.size());
        for (std::size_t at = 0; at < longest; ++at) {
            std::map<std::vector<std::string>, std::set<std::string>> values; // rest -> values
            for (const auto& p : current) {
                if (p.size() <= at || (at + 1 == p.size() && p[at].empty())) continue;
                auto rest = p;
                rest[at] = "*";
                values[rest].insert(p[at]);
            }
            std::set<std::vector<std::string>> next;
            for (const auto& p : current) {
                if (p.size() <= at || (at + 1 == p.size() && p[at].empty())) {
                    next.insert(p);
                    continue;
                }
                auto rest = p;
                rest[at] = "*";
                const auto& seen = values[rest];
                const bool varies =
                    seen.size() >= 3 ||
                    (seen.size() == 2 && std::all_of(seen.begin(), seen.end(), holds_digit));
                if (varies && p[at] != "*") changed = true;
                next.insert(varies ? rest : p);
            }
            current = std::move(next);
        }
    }
    // Too many: shorter prefixes, "/a/b/*", then "/a/*", then "/*".
    for (std::size_t keep = 3; current.size() > max_patterns && keep > 0; --keep) {
        std::set<std::vector<std::string>> next;
        for (const auto& p : current) {
            if (p.size() <= keep) {
                next.insert(p);
                continue;
            }
            std::vector<std::string> cut(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(keep));
            cut.push_back("*");
            next.insert(std::move(cut));
        }
        current = std::move(next);
    }
    if (current.size() > max_patterns) return {"/*"};
    std::vector<std::string> out;
    for (const auto& p : current)
        out.push_back(joined(p));
    return out;
}

void SpecSuggestion::add(std::string_view text) {
    namespace f = osf::log_field;
    const auto line = nlohmann::json::parse(text, nullptr, false);
    if (!line.is_object() || line.contains(osf::log_evidence_field::kind)) return;
    const std::string outcome = text_of(line, f::outcome);
    if (text_of(line, f::scheme) == "tcp") {
        const std::string host = text_of(line, f::host);
        const auto port = count_of(line, f::port);
        const bool asked = outcome != to_string(osf::Outcome::refused) ||
                           text_of(line, f::refused_by) ==
                               to_string(osf::RefusalReason::tcp_destination_not_allowed);
        if (asked && !host.empty() && port > 0 && port <= 65535)
            tcp_.insert(host + ":" + std::to_string(port));
        return;
    }
    if (outcome == to_string(osf::Outcome::refused) || outcome.empty()) return;
    const std::string host = text_of(line, f::host);
    if (host.empty() || count_of(line, f::count) > 0) return; // a folded line has no path
    const auto port = count_of(line, f::port);
    const std::string scheme = text_of(line, f::scheme);
    const bool default_port = port == 0 || port == 443 || port == 80;
    const std::string name = default_port ? host : host + ":" + std::to_string(port);
    const std::string method = text_of(line, f::method);
    const std::string server = text_of(line, f::mcp_server);
    if (!server.empty()) {
        auto& s = servers_[server];
        if (s.url.empty())
            s.url = (scheme.empty() ? std::string("https") : scheme) + "://" + host +
                    (default_port ? std::string() : ":" + std::to_string(port)) +
                    text_of(line, f::path);
        const std::string tools = text_of(line, f::tool);
        for (std::size_t start = 0; !tools.empty() && start <= tools.size();) {
            const auto comma = tools.find(',', start);
            const auto tool = tools.substr(start, comma - start);
            if (!tool.empty()) s.tools.insert(tool);
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        return;
    }
    auto& d = hosts_[name];
    if (method == "CONNECT") return;
    d.only_tunnels = false;
    std::string path = text_of(line, f::path);
    if (path.empty() || path.front() != '/') path = "/" + path;
    d.paths_by_method[method].insert(path);
}

nlohmann::ordered_json SpecSuggestion::spec() const {
    using json = nlohmann::ordered_json;
    json egress = json::array();
    for (const auto& [name, d] : hosts_) {
        if (d.only_tunnels || d.paths_by_method.empty()) {
            egress.push_back(name);
            continue;
        }
        // Methods that share their patterns share a rule.
        std::map<std::vector<std::string>, std::vector<std::string>> methods_by_patterns;
        for (const auto& [method, paths] : d.paths_by_method)
            methods_by_patterns[generalise(paths)].push_back(method);
        json rules = json::array();
        for (const auto& [patterns, methods] : methods_by_patterns)
            rules.push_back({{"methods", methods}, {"paths", patterns}, {"allow", true}});
        egress.push_back({{"host", name}, {"rules", rules}});
    }
    json mcp = json::array();
    for (const auto& [server, s] : servers_)
        mcp.push_back({{"name", server}, {"url", s.url}, {"tools", s.tools}});
    json out = json::object();
    out["egress"] = egress;
    if (!tcp_.empty()) out["tcp"] = tcp_;
    if (!mcp.empty()) out["mcp"] = mcp;
    return out;
}

} // namespace osf::egress_log
