#include "osf/policy_edit.hpp"

#include "json_path.hpp"
#include "osf/strict_json.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <variant>

namespace osf::policy_edit {

namespace {

using ordered = nlohmann::ordered_json;

// An entry as given to allow or revoke: "host[:port]", or an entry with
// rules written as JSON ({"host": ..., "rules": [...]}).
struct GivenEntry {
    EgressRule rule;
    ordered written; // what goes into the spec's `egress`
};

// The rule an entry means, or why it is not one (the spec validator's words,
// with the path inside the entry: "rules[1].paths[0]: ...").
std::variant<GivenEntry, std::string> rule_of(const std::string& entry) {
    ordered written = entry;
    if (entry.find_first_not_of(" \t\r\n") != std::string::npos &&
        entry[entry.find_first_not_of(" \t\r\n")] == '{') {
        auto read = strict_json::read<ordered>(entry, {.max_depth = 16});
        if (!read.ok() || !read.document.is_object())
            return std::string("is not a JSON object: write {\"host\": \"api.example.com\", "
                               "\"rules\": [{\"methods\": \"read-only\", \"allow\": true}]}");
        written = std::move(read.document);
    }
    const auto parsed = parse_spec(ordered{{"egress", ordered::array({written})}}.dump());
    if (!parsed.ok()) {
        const auto& error = parsed.errors.front();
        std::string where = error.path.starts_with("$.egress[0].") ? error.path.substr(12) : "";
        return (where.empty() ? std::string() : where + ": ") + error.message;
    }
    return GivenEntry{parsed.spec->egress.front(), std::move(written)};
}

// What two entries of one name must share to be the same policy: their rules.
std::string rules_key(const EgressRule& rule) {
    if (!rule.has_rules) return {};
    nlohmann::json key = nlohmann::json::array();
    for (const auto& r : rule.rules)
        key.push_back({r.methods, r.paths, r.query, r.allow, r.name, r.reason});
    return key.dump() + rule.reason + (rule.audit ? (*rule.audit ? " audit" : " enforce") : "");
}

std::map<std::string, std::string> entry_names(const Spec& spec) {
    std::map<std::string, std::string> names; // name -> its rules
    for (const auto& rule : spec.egress)
        names.emplace(entry_name(rule), rules_key(rule));
    for (const auto& destination : spec.tcp)
        names.emplace(entry_name(destination), std::string());
    return names;
}

// A `tcp` entry as given ("host:port", after the "tcp:" prefix), or why it is not one.
std::variant<TcpDestination, std::string> tcp_of(const std::string& entry) {
    const auto parsed = parse_spec(ordered{{"tcp", ordered::array({entry})}}.dump());
    if (!parsed.ok()) return parsed.errors.front().message;
    return parsed.spec->tcp.front();
}

// Allows or revokes one "tcp:host:port" entry in the document's `tcp`.
void edit_tcp(ordered& document, const std::string& entry, bool allow, EditResult& result) {
    const auto given = tcp_of(entry.substr(tcp_prefix.size()));
    if (const auto* why = std::get_if<std::string>(&given)) {
        result.errors.push_back(spec_detail::json_quoted(entry) + ": " + *why);
        return;
    }
    const std::string name = entry_name(std::get<TcpDestination>(given));
    auto& tcp = document["tcp"];
    if (tcp.is_null()) tcp = ordered::array();
    // Every spelling of it ("Git.example.com.:22" and "git.example.com:22" are one).
    std::vector<std::size_t> at;
    for (std::size_t k = 0; k < tcp.size(); ++k) {
        if (!tcp[k].is_string()) continue;
        const auto written = tcp_of(tcp[k].get<std::string>());
        if (const auto* d = std::get_if<TcpDestination>(&written); d && entry_name(*d) == name)
            at.push_back(k);
    }
    if (allow) {
        if (!at.empty()) {
            result.unchanged.push_back(name);
            return;
        }
        tcp.push_back(name.substr(tcp_prefix.size()));
        result.changed.push_back(name);
        return;
    }
    if (at.empty()) {
        result.errors.push_back(spec_detail::json_quoted(name) +
                                " is not in the sandbox's tcp list (its spec lists what it may "
                                "reach); nothing to revoke");
        return;
    }
    for (auto k = at.rbegin(); k != at.rend(); ++k)
        tcp.erase(tcp.begin() + static_cast<std::ptrdiff_t>(*k));
    result.changed.push_back(name);
}

// "server:tool" -> its argument rules as text (empty for a tool written as a name).
std::map<std::string, std::string> tool_names(const Spec& spec) {
    std::map<std::string, std::string> names;
    for (const auto& server : spec.mcp) {
        for (const auto& tool : server.tools)
            names.emplace(server.name + ":" + tool, std::string());
        for (const auto& tool : server.tool_rules) {
            nlohmann::json key = nlohmann::json::array();
            for (const auto& rule : tool.arguments)
                key.push_back({rule.argument, static_cast<int>(rule.test), rule.values});
            names[server.name + ":" + tool.name] = key.dump();
        }
    }
    return names;
}

// A tool as given to allow or revoke after "server:": a name, or a tool with
// argument rules written as JSON ({"name", "arguments"}).
struct GivenTool {
    std::string name;
    ordered written; // what goes into the server's `tools`
};

std::variant<GivenTool, std::string> tool_of(const std::string& server, const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos || text[first] != '{') return GivenTool{text, ordered(text)};
    auto read = strict_json::read<ordered>(text, {.max_depth = 16});
    if (!read.ok() || !read.document.is_object())
        return std::string("is not a JSON object: write SERVER:{\"name\": \"search\", "
                           "\"arguments\": {\"project\": {\"equals\": \"acme\"}}}");
    // The spec validator's words, with the path inside the tool ("arguments.project: ...").
    const ordered probe = {{"mcp", ordered::array({{{"name", server},
                                                    {"url", "https://probe.invalid/mcp"},
                                                    {"tools", ordered::array({read.document})}}})}};
    const auto parsed = parse_spec(probe.dump());
    if (!parsed.ok()) {
        const auto& error = parsed.errors.front();
        const std::string prefix = "$.mcp[0].tools[0].";
        std::string where = error.path.starts_with(prefix) ? error.path.substr(prefix.size()) : "";
        return (where.empty() ? std::string() : where + ": ") + error.message;
    }
    return GivenTool{parsed.spec->mcp.front().tools.front(), std::move(read.document)};
}

// The name of a written tool (a string or an object with a string name), or empty.
std::string written_tool_name(const ordered& tool) {
    if (tool.is_string()) return tool.get<std::string>();
    if (tool.is_object())
        if (auto name = tool.find("name"); name != tool.end() && name->is_string())
            return name->get<std::string>();
    return {};
}

std::vector<std::string> minus(const std::map<std::string, std::string>& a,
                               const std::map<std::string, std::string>& b) {
    std::vector<std::string> out;
    for (const auto& [name, rules] : a)
        if (!b.contains(name)) out.push_back(name);
    return out;
}

// The document without what may change live: `egress` and each server's `tools`.
nlohmann::json fixed_part(std::string_view text) {
    auto read =
        strict_json::read<nlohmann::json>(text, {.max_depth = 64, .allow_byte_order_mark = true});
    nlohmann::json document = std::move(read.document);
    if (!document.is_object()) return document;
    document.erase("egress");
    document.erase("tcp");
    if (auto mcp = document.find("mcp"); mcp != document.end() && mcp->is_array())
        for (auto& server : *mcp)
            if (server.is_object()) server.erase("tools");
    return document;
}

// The canonical name of each element of the document's `egress`, in order
// (empty for an element that is not an entry), and whether it has rules:
// read once per edit.
struct WrittenEntry {
    std::string name;
    bool has_rules = false;
};
std::vector<WrittenEntry> written_names(const ordered& egress) {
    std::vector<WrittenEntry> names;
    for (const auto& written : egress) {
        const auto given =
            rule_of(written.is_string() ? written.get<std::string>() : written.dump());
        const auto* entry = std::get_if<GivenEntry>(&given);
        names.push_back(entry ? WrittenEntry{entry_name(entry->rule), entry->rule.has_rules}
                              : WrittenEntry{});
    }
    return names;
}

void edit_hosts(ordered& document, const Edit& edit, EditResult& result) {
    const bool allow = edit.direction == Direction::allow;
    auto& egress = document["egress"];
    if (egress.is_null()) egress = ordered::array();
    std::vector<WrittenEntry> names = written_names(egress);
    auto find = [&](const std::string& name) {
        return std::find_if(names.begin(), names.end(),
                            [&](const WrittenEntry& w) { return w.name == name; });
    };
    for (const auto& entry : edit.hosts) {
        if (entry.starts_with(tcp_prefix)) {
            edit_tcp(document, entry, allow, result);
            continue;
        }
        auto given = rule_of(entry);
        if (const auto* why = std::get_if<std::string>(&given)) {
            result.errors.push_back(spec_detail::json_quoted(entry) + ": " + *why);
            continue;
        }
        auto& [rule, written] = std::get<GivenEntry>(given);
        const std::string name = entry_name(rule);
        const auto at = find(name);
        const bool present = at != names.end();
        if (allow) {
            const auto k = static_cast<std::ptrdiff_t>(at - names.begin());
            if (!present) {
                egress.push_back(rule.has_rules ? written : ordered(name));
                names.push_back({name, rule.has_rules});
                result.changed.push_back(name);
            } else if (rule.has_rules ? egress[static_cast<std::size_t>(k)] != written
                                      : at->has_rules) {
                // New rules for the host, or the host allowed whole instead of by rules.
                egress[static_cast<std::size_t>(k)] = rule.has_rules ? written : ordered(name);
                at->has_rules = rule.has_rules;
                result.changed.push_back(name);
            } else {
                result.unchanged.push_back(name);
            }
        } else if (!present) {
            result.errors.push_back(spec_detail::json_quoted(name) +
                                    " is not in the sandbox's egress (its spec lists what it "
                                    "may reach); nothing to revoke");
        } else {
            // Every spelling of it ("Example.com" and "example.com." are one rule), rules and all.
            for (std::size_t k = names.size(); k-- > 0;)
                if (names[k].name == name) {
                    egress.erase(egress.begin() + static_cast<std::ptrdiff_t>(k));
                    names.erase(names.begin() + static_cast<std::ptrdiff_t>(k));
                }
            result.changed.push_back(name);
        }
    }
}

void edit_tools(ordered& document, const Edit& edit, EditResult& result) {
    const bool allow = edit.direction == Direction::allow;
    for (const auto& named : edit.tools) {
        const auto colon = named.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == named.size()) {
            result.errors.push_back(spec_detail::json_quoted(named) +
                                    ": an MCP tool is SERVER:TOOL, a server the spec declares "
                                    "and one of its tools (wiki:search)");
            continue;
        }
        const std::string server = named.substr(0, colon);
        auto given = tool_of(server, named.substr(colon + 1));
        if (const auto* why = std::get_if<std::string>(&given)) {
            result.errors.push_back(spec_detail::json_quoted(named) + ": " + *why);
            continue;
        }
        const std::string& tool = std::get<GivenTool>(given).name;
        const ordered& written = std::get<GivenTool>(given).written;
        const std::string label = server + ":" + tool; // as the policy line names it
        ordered* entry = nullptr;
        if (auto mcp = document.find("mcp"); mcp != document.end() && mcp->is_array())
            for (auto& candidate : *mcp)
                if (candidate.is_object() && candidate.value("name", "") == server)
                    entry = &candidate;
        if (!entry) {
            result.errors.push_back(
                spec_detail::json_quoted(named) + ": the spec declares no MCP server " +
                spec_detail::json_quoted(server) +
                " (a new server needs a new sandbox: its URL is part of the CA and the filter)");
            continue;
        }
        auto& tools = (*entry)["tools"];
        if (tools.is_null()) tools = ordered::array();
        const auto at = std::find_if(tools.begin(), tools.end(), [&](const ordered& t) {
            return written_tool_name(t) == tool;
        });
        if (allow) {
            if (at == tools.end()) {
                tools.push_back(written);
                result.changed.push_back(label);
            } else if (*at != written) {
                // New argument rules, or the tool allowed whole instead of by its rules.
                *at = written;
                result.changed.push_back(label);
            } else {
                result.unchanged.push_back(label);
            }
        } else if (at == tools.end()) {
            result.errors.push_back(spec_detail::json_quoted(named) + " is not among server " +
                                    spec_detail::json_quoted(server) +
                                    "'s tools; nothing to revoke");
        } else {
            tools.erase(at);
            result.changed.push_back(label);
        }
    }
}

} // namespace

std::string entry_name(const EgressRule& rule) {
    return rule.port ? rule.host + ":" + std::to_string(*rule.port) : rule.host;
}

std::string entry_name(const TcpDestination& destination) {
    return std::string(tcp_prefix) + destination.host + ":" + std::to_string(destination.port);
}

EditResult apply(std::string_view spec_text, const Edit& edit) {
    EditResult result;
    result.spec_text = std::string(spec_text);
    const auto parsed = parse_running_spec(spec_text);
    if (!parsed.ok()) {
        result.errors.push_back("the sandbox's spec is not valid: " +
                                parsed.errors.front().to_string());
        return result;
    }
    auto read =
        strict_json::read<ordered>(spec_text, {.max_depth = 64, .allow_byte_order_mark = true});
    ordered document = std::move(read.document);
    edit_hosts(document, edit, result);
    edit_tools(document, edit, result);
    if (!result.errors.empty() || result.changed.empty()) return result;
    const std::string edited = document.dump(2) + "\n";
    // The same validator as at create: limits (256 entries) hold for the new spec too.
    const auto checked = parse_running_spec(edited);
    if (!checked.ok()) {
        for (const auto& error : checked.errors)
            result.errors.push_back("the changed spec is not valid: " + error.to_string());
        return result;
    }
    result.spec_text = edited;
    return result;
}

Difference difference(std::string_view before, std::string_view after) {
    Difference out;
    const auto old_spec = parse_running_spec(before), new_spec = parse_running_spec(after);
    if (!old_spec.ok() || !new_spec.ok()) {
        out.other = "$";
        return out;
    }
    // A host whose rules changed is allowed anew (with its new rules).
    const auto old_hosts = entry_names(*old_spec.spec), new_hosts = entry_names(*new_spec.spec);
    for (const auto& [name, rules] : new_hosts)
        if (const auto it = old_hosts.find(name); it == old_hosts.end() || it->second != rules)
            out.allowed_hosts.push_back(name);
    for (const auto& [name, rules] : old_hosts)
        if (!new_hosts.contains(name)) out.revoked_hosts.push_back(name);
    // A tool whose argument rules changed is allowed anew (with its new rules).
    const auto old_tools = tool_names(*old_spec.spec), new_tools = tool_names(*new_spec.spec);
    for (const auto& [name, rules] : new_tools)
        if (const auto it = old_tools.find(name); it == old_tools.end() || it->second != rules)
            out.allowed_tools.push_back(name);
    out.revoked_tools = minus(old_tools, new_tools);
    const auto a = fixed_part(before), b = fixed_part(after);
    if (a != b) {
        out.other = "$";
        if (a.is_object() && b.is_object()) {
            std::set<std::string> keys;
            for (const auto& [key, value] : a.items())
                keys.insert(key);
            for (const auto& [key, value] : b.items())
                keys.insert(key);
            for (const auto& key : keys)
                if (a.value(key, nlohmann::json()) != b.value(key, nlohmann::json())) {
                    out.other = spec_detail::member_path("$", key);
                    break;
                }
        }
    }
    return out;
}

} // namespace osf::policy_edit
