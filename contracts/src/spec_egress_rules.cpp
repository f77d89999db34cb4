// An `egress` entry written as an object: {"host", "rules", "reason"}, the
// rules per method, path and query that requests to the host are judged by.
#include "json_path.hpp"
#include "osf/spec_limits.hpp"
#include "spec_sections.hpp"

#include <set>

namespace osf::spec_detail {

namespace {

constexpr std::string_view rule_example =
    "{\"methods\": \"read-only\", \"paths\": [\"/repos/acme/widgets/*\"], \"allow\": true}";

bool is_pattern_char(char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
    return std::string_view("-._~!$&'()+,;=:@").find(c) != std::string_view::npos;
}

bool is_query_pattern_char(char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
    return std::string_view("-._~!$'()*+,;:@/?").find(c) != std::string_view::npos;
}

bool reason_has_control_char(std::string_view text) {
    for (const char c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
    return false;
}

// Why a path pattern is not one, or empty. Patterns name normalised paths in
// plain characters (no '%': the proxy compares decoded paths), '*' a whole
// segment: a last "/*" is every path below, another "*" any one segment.
std::string path_pattern_problem(const std::string& pattern) {
    const std::string shown = json_quoted(pattern);
    if (pattern.empty() || pattern.front() != '/')
        return shown + " does not start with '/': write the path, as \"/repos/acme/widgets\"";
    if (pattern.size() > spec_limits::max_rule_path_length)
        return shown + " is longer than " + std::to_string(spec_limits::max_rule_path_length) +
               " characters";
    if (const auto at = pattern.find_first_of("?#"); at != std::string::npos)
        return shown + " holds '" + pattern[at] +
               "': a path pattern is the path alone; name a query parameter in \"query\"";
    // "/a/b" or "/a/b/": segments between single slashes, one trailing slash at most.
    std::string_view rest = std::string_view(pattern).substr(1);
    while (!rest.empty()) {
        const auto slash = rest.find('/');
        const std::string_view segment = rest.substr(0, slash);
        rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
        if (segment.empty()) return shown + " has an empty segment ('//'): write single slashes";
        if (segment == "." || segment == "..")
            return shown + " has a '" + std::string(segment) +
                   "' segment: write the path the segments resolve to";
        if (segment != "*" && segment.find('*') != std::string_view::npos)
            return shown + " has '*' inside a segment: '*' stands for whole segments, as "
                           "\"/repos/*/issues\" or \"/repos/acme/*\"";
        for (const char c : segment)
            if (c != '*' && !is_pattern_char(c))
                return shown + " holds " + (c == '%' ? std::string("'%'") : json_quoted({&c, 1})) +
                       ": a pattern names the decoded path in letters, digits and "
                       "-._~!$&'()+,;=:@ (other paths are matched by '*' only)";
    }
    return {};
}

bool check_methods(const nlohmann::json& value, const std::string& at, const SpecCheck& check,
                   RequestRule& rule) {
    if (value.is_string()) {
        if (value.get_ref<const std::string&>() != "read-only") {
            check.fail(at, json_quoted(value.get_ref<const std::string&>()) +
                               " is not a method list: write \"read-only\" (GET, HEAD, OPTIONS) "
                               "or a list, as [\"GET\", \"POST\"]");
            return false;
        }
        rule.read_only = true;
        rule.methods = {"GET", "HEAD", "OPTIONS"};
        return true;
    }
    const auto within = check_collection(value, check, at, Shape::array,
                                         "\"read-only\" or a list of methods, as [\"GET\"]",
                                         spec_limits::max_rule_methods, "methods");
    if (!within) return false;
    bool good = *within;
    if (value.empty()) {
        check.fail(at, "is empty: list a method, or leave \"methods\" out to match every method");
        return false;
    }
    std::set<std::string> seen;
    for (std::size_t i = 0; i < value.size(); ++i) {
        const std::string method_at = index_path(at, i);
        if (!value[i].is_string()) {
            check.fail(method_at, "must be a method, as \"GET\"; got " + describe_type(value[i]));
            good = false;
            continue;
        }
        const auto& method = value[i].get_ref<const std::string&>();
        bool token = !method.empty() && method.size() <= 32 && method.front() >= 'A' &&
                     method.front() <= 'Z';
        bool upper = true;
        for (const char c : method) {
            if (c >= 'a' && c <= 'z') upper = false;
            if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
                token = false;
        }
        std::string problem;
        if (!upper)
            problem = json_quoted(method) +
                      " is not upper case: methods are case-sensitive, write the method as sent, "
                      "as \"GET\"";
        else if (!token)
            problem = json_quoted(method) + " is not a method: upper-case letters, digits, '-' "
                                            "and '_', at most 32, as \"GET\"";
        else if (!seen.insert(method).second)
            problem = json_quoted(method) + " is listed twice";
        if (!problem.empty()) {
            check.fail(method_at, problem);
            good = false;
            continue;
        }
        rule.methods.push_back(method);
    }
    return good;
}

bool check_paths(const nlohmann::json& value, const std::string& at, const SpecCheck& check,
                 RequestRule& rule) {
    const auto within = check_collection(value, check, at, Shape::array,
                                         "a list of path patterns, as [\"/repos/acme/*\"]",
                                         spec_limits::max_rule_paths, "paths");
    if (!within) return false;
    bool good = *within;
    if (value.empty()) {
        check.fail(at, "is empty: list a path pattern, or leave \"paths\" out to match every path");
        return false;
    }
    std::set<std::string> seen;
    for (std::size_t i = 0; i < value.size(); ++i) {
        const std::string path_at = index_path(at, i);
        if (!value[i].is_string()) {
            check.fail(path_at, "must be a path pattern, as \"/repos/acme/*\"; got " +
                                    describe_type(value[i]));
            good = false;
            continue;
        }
        const auto& pattern = value[i].get_ref<const std::string&>();
        std::string problem = path_pattern_problem(pattern);
        if (problem.empty() && !seen.insert(pattern).second)
            problem = json_quoted(pattern) + " is listed twice";
        if (!problem.empty()) {
            check.fail(path_at, problem);
            good = false;
            continue;
        }
        rule.paths.push_back(pattern);
    }
    return good;
}

bool check_query(const nlohmann::json& value, const std::string& at, const SpecCheck& check,
                 RequestRule& rule) {
    const auto within = check_collection(
        value, check, at, Shape::object,
        "an object of parameters and values, as {\"service\": \"git-upload-pack\"}",
        spec_limits::max_rule_query_parameters, "parameters");
    if (!within) return false;
    bool good = *within;
    if (value.empty()) {
        check.fail(at, "is empty: name a parameter, or leave \"query\" out");
        return false;
    }
    auto plain = [](const std::string& text) {
        if (text.empty() || text.size() > spec_limits::max_rule_query_length) return false;
        for (const char c : text)
            if (!is_query_pattern_char(c)) return false;
        return true;
    };
    for (const auto& [name, expected] : value.items()) {
        const std::string member_at = member_path(at, name);
        if (!plain(name)) {
            check.fail(member_at, json_quoted(name) +
                                      " is not a parameter name: 1 to 256 letters, digits and "
                                      "-._~!$'()*+,;:@/? (decoded, no '%', '&' or '=')");
            good = false;
            continue;
        }
        if (!expected.is_string() || !plain(expected.get_ref<const std::string&>())) {
            check.fail(member_at,
                       expected.is_string()
                           ? json_quoted(expected.get_ref<const std::string&>()) +
                                 " is not a parameter value: 1 to 256 letters, digits and "
                                 "-._~!$'()*+,;:@/? (decoded, no '%', '&' or '=')"
                           : "must be the parameter's value, a string; got " +
                                 describe_type(expected));
            good = false;
            continue;
        }
        rule.query.emplace_back(name, expected.get_ref<const std::string&>());
    }
    return good;
}

bool is_rule_name(std::string_view name) {
    if (name.empty() || name.size() > spec_limits::max_rule_name_length) return false;
    if (name.front() == '-' || name.back() == '-') return false;
    for (const char c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
    return true;
}

// `reason`: words the refusal shows an agent.
bool check_reason(const nlohmann::json& value, const std::string& at, const SpecCheck& check,
                  std::string& reason) {
    if (!value.is_string()) {
        check.fail(at, "must be text for the agent, as \"read-only: ask the operator to push\"; "
                       "got " +
                           describe_type(value));
        return false;
    }
    const auto& text = value.get_ref<const std::string&>();
    if (text.empty() || code_points(text) > spec_limits::max_reason_length ||
        reason_has_control_char(text)) {
        check.fail(at, "must be 1 to " + std::to_string(spec_limits::max_reason_length) +
                           " characters on one line");
        return false;
    }
    reason = text;
    return true;
}

std::optional<RequestRule> check_rule(const nlohmann::json& value, const std::string& at,
                                      const SpecCheck& check) {
    if (!value.is_object()) {
        check.fail(at, "must be an object, as " + std::string(rule_example) + "; got " +
                           describe_type(value));
        return std::nullopt;
    }
    check_known_fields(value, at, {"methods", "paths", "query", "allow", "deny", "name", "reason"},
                       "a rule has methods, paths, query, allow or deny, name and reason", check);
    RequestRule rule;
    bool good = true;
    const bool allow = value.contains("allow"), deny = value.contains("deny");
    if (allow == deny) {
        check.fail(at, allow ? "has both \"allow\" and \"deny\": a rule does one"
                             : "says neither \"allow\": true nor \"deny\": true");
        good = false;
    } else {
        const char* field = allow ? "allow" : "deny";
        if (value[field] != true) {
            check.fail(member_path(at, field),
                       std::string("must be true (to ") + (allow ? "deny" : "allow") +
                           ", write \"" + (allow ? "deny" : "allow") + "\": true instead)");
            good = false;
        }
        rule.allow = allow;
    }
    if (value.contains("methods"))
        good = check_methods(value["methods"], at + ".methods", check, rule) && good;
    if (value.contains("paths"))
        good = check_paths(value["paths"], at + ".paths", check, rule) && good;
    if (value.contains("query"))
        good = check_query(value["query"], at + ".query", check, rule) && good;
    if (value.contains("name")) {
        const auto& name = value["name"];
        if (!name.is_string() || !is_rule_name(name.get_ref<const std::string&>())) {
            check.fail(at + ".name", "must be a short name: lower-case letters, digits and inner "
                                     "'-', at most 63, as \"read-widgets\"");
            good = false;
        } else {
            rule.name = name.get_ref<const std::string&>();
        }
    }
    if (value.contains("reason"))
        good = check_reason(value["reason"], at + ".reason", check, rule.reason) && good;
    if (!good) return std::nullopt;
    return rule;
}

} // namespace

bool check_mode(const nlohmann::json& value, const std::string& at, const SpecCheck& check) {
    if (value == "audit") return true;
    if (value != "enforce")
        check.fail(at, "must be \"enforce\" (refuse what the rules refuse, the default) or "
                       "\"audit\" (let it through, logged with wouldRefuse); got " +
                           (value.is_string() ? json_quoted(value.get_ref<const std::string&>())
                                              : describe_type(value)));
    return false;
}

std::optional<EgressRule> check_egress_object(const nlohmann::json& entry, const std::string& at,
                                              const SpecCheck& check) {
    check_known_fields(entry, at, {"host", "rules", "reason", "mode"},
                       "an egress entry with rules has host, rules, reason and mode", check);
    bool good = true;
    EgressRule out;
    out.has_rules = true;
    for (const char* field : {"host", "rules"})
        if (!entry.contains(field)) {
            check.fail(at, json_quoted(field) +
                               " is missing: write {\"host\": "
                               "\"api.example.com\", \"rules\": [" +
                               std::string(rule_example) + "]}");
            good = false;
        }
    if (entry.contains("host")) {
        const auto& host = entry["host"];
        if (!host.is_string()) {
            check.fail(at + ".host", "must be a string, a host name as \"api.example.com\"; got " +
                                         describe_type(host));
            good = false;
        } else {
            auto parsed = check_egress_host(host.get_ref<const std::string&>());
            if (auto* problem = std::get_if<std::string>(&parsed)) {
                check.fail(at + ".host", *problem);
                good = false;
            } else {
                auto& rule = std::get<EgressRule>(parsed);
                out.host = std::move(rule.host);
                out.port = rule.port;
            }
        }
    }
    if (entry.contains("reason"))
        good = check_reason(entry["reason"], at + ".reason", check, out.reason) && good;
    if (entry.contains("mode")) {
        const auto errors = check.errors.size();
        out.audit = check_mode(entry["mode"], at + ".mode", check);
        good = good && check.errors.size() == errors;
    }
    if (!entry.contains("rules")) return std::nullopt;
    const std::string rules_at = at + ".rules";
    const auto& rules = entry["rules"];
    const auto within = check_collection(rules, check, rules_at, Shape::array,
                                         "a list of rules, as [" + std::string(rule_example) + "]",
                                         spec_limits::max_egress_rules, "rules");
    if (!within) return std::nullopt;
    good = *within && good;
    if (rules.empty()) {
        check.fail(rules_at, "is empty: list a rule (first match wins, no match refuses), or "
                             "write the host as a string to allow it whole");
        return std::nullopt;
    }
    std::set<std::string> names;
    for (std::size_t i = 0; i < rules.size(); ++i) {
        const std::string rule_at = index_path(rules_at, i);
        auto rule = check_rule(rules[i], rule_at, check);
        if (!rule) {
            good = false;
            continue;
        }
        if (!rule->name.empty() && !names.insert(rule->name).second) {
            check.fail(rule_at + ".name", json_quoted(rule->name) +
                                              " is already the name of another rule of this "
                                              "entry");
            good = false;
            continue;
        }
        out.rules.push_back(std::move(*rule));
    }
    if (!good) return std::nullopt;
    // The short name the log and the refusal give a rule without one.
    const std::string entry_name = out.port ? out.host + ":" + std::to_string(*out.port) : out.host;
    for (std::size_t i = 0; i < out.rules.size(); ++i)
        if (out.rules[i].name.empty()) out.rules[i].name = entry_name + "#" + std::to_string(i);
    return out;
}

} // namespace osf::spec_detail
