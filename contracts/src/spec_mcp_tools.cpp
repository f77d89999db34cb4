// An MCP server's `tools`: names, or {"name", "arguments"} objects whose
// argument rules the proxy applies to each tools/call.
#include "json_path.hpp"
#include "osf/spec_limits.hpp"
#include "osf/tool_pattern.hpp"
#include "spec_sections.hpp"

#include <map>
#include <set>

namespace osf::spec_detail {

namespace {

bool tool_text_has_control_char(std::string_view text) {
    for (const char c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
    return false;
}

constexpr std::string_view kToolExample =
    R"(a tool name, as "search", or {"name": "search", "arguments": {"project": {"equals": "acme"}}})";

// Why `name` cannot name a tool (completing "$...: "), or empty.
std::string tool_name_problem(const std::string& name) {
    if (name.empty()) return "is empty: name a tool the server offers";
    if (code_points(name) > spec_limits::max_mcp_tool_length)
        return "is longer than " + std::to_string(spec_limits::max_mcp_tool_length) + " characters";
    if (tool_text_has_control_char(name)) return json_quoted(name) + " holds a control character";
    return {};
}

// A value `equals` or `in` compares with: a string, number or boolean, as JSON text.
std::optional<std::string> comparable_value(const nlohmann::json& value, const std::string& at,
                                            const SpecCheck& check) {
    if (value.is_string()) {
        const auto& text = value.get_ref<const std::string&>();
        if (code_points(text) > spec_limits::max_tool_argument_value_length) {
            check.fail(at, "is longer than " +
                               std::to_string(spec_limits::max_tool_argument_value_length) +
                               " characters");
            return std::nullopt;
        }
        return value.dump();
    }
    if (value.is_number() || value.is_boolean()) return value.dump();
    check.fail(at, "must be a string, a number or a boolean (the value the argument must "
                   "have); got " +
                       describe_type(value));
    return std::nullopt;
}

// A `prefix` or `matches` text.
std::optional<std::string> pattern_text(const nlohmann::json& value, const std::string& at,
                                        std::string_view example, const SpecCheck& check) {
    if (!value.is_string()) {
        check.fail(at, "must be a string, as " + std::string(example) + "; got " +
                           describe_type(value));
        return std::nullopt;
    }
    const auto& text = value.get_ref<const std::string&>();
    if (text.empty()) {
        check.fail(at, "is empty: it would allow every value; leave the argument out instead");
        return std::nullopt;
    }
    if (code_points(text) > spec_limits::max_tool_argument_value_length) {
        check.fail(at, "is longer than " +
                           std::to_string(spec_limits::max_tool_argument_value_length) +
                           " characters");
        return std::nullopt;
    }
    if (tool_text_has_control_char(text)) {
        check.fail(at, json_quoted(text) +
                           " holds a control character (a pattern writes one as \\n, \\t...)");
        return std::nullopt;
    }
    return text;
}

std::optional<ToolArgumentRule> check_argument(const std::string& argument,
                                               const nlohmann::json& value, const std::string& at,
                                               const SpecCheck& check) {
    std::string problem;
    if (argument.empty())
        problem = "an argument name is empty: name an argument of the tool";
    else if (code_points(argument) > spec_limits::max_tool_argument_name_length)
        problem = "the argument name is longer than " +
                  std::to_string(spec_limits::max_tool_argument_name_length) + " characters";
    else if (tool_text_has_control_char(argument))
        problem = "the argument name holds a control character";
    if (!problem.empty()) {
        check.fail(at, problem);
        return std::nullopt;
    }
    constexpr std::string_view expected =
        R"(an object with one test: {"equals": "acme"}, {"in": ["a", "b"]}, {"prefix": "acme/"} or {"matches": "acme/[a-z-]+"})";
    if (!value.is_object()) {
        check.fail(at, "must be " + std::string(expected) + "; got " + describe_type(value));
        return std::nullopt;
    }
    check_known_fields(value, at, {"equals", "in", "matches", "prefix"},
                       "an argument rule has one of equals, in, matches, prefix", check);
    std::vector<std::string> tests;
    for (const char* test : {"equals", "in", "matches", "prefix"})
        if (value.contains(test)) tests.emplace_back(test);
    // Only unknown fields: already reported, one error for one mistake.
    if (tests.empty() && !value.empty()) return std::nullopt;
    if (tests.size() != 1) {
        check.fail(at, tests.empty() ? "has no test: give it " + std::string(expected)
                                     : "has " + std::to_string(tests.size()) +
                                           " tests: give it exactly one (" + tests[0] + " or " +
                                           tests[1] + "), or write a `matches` pattern");
        return std::nullopt;
    }
    ToolArgumentRule rule;
    rule.argument = argument;
    const std::string test_at = at + "." + tests[0];
    const auto& written = value[tests[0]];
    if (tests[0] == "equals") {
        rule.test = ToolArgumentRule::Test::equals;
        auto text = comparable_value(written, test_at, check);
        if (!text) return std::nullopt;
        rule.values.push_back(std::move(*text));
    } else if (tests[0] == "in") {
        rule.test = ToolArgumentRule::Test::in;
        const auto within = check_collection(written, check, test_at, Shape::array,
                                             "an array of allowed values, as [\"acme\", \"beta\"]",
                                             spec_limits::max_tool_argument_values, "values");
        if (!within || !*within) return std::nullopt;
        if (written.empty()) {
            check.fail(test_at, "is empty: it would allow no call at all; list the values "
                                "allowed, or leave the tool out");
            return std::nullopt;
        }
        std::set<std::string> seen;
        bool good = true;
        for (std::size_t i = 0; i < written.size(); ++i) {
            auto text = comparable_value(written[i], index_path(test_at, i), check);
            if (!text) {
                good = false;
            } else if (!seen.insert(*text).second) {
                check.fail(index_path(test_at, i), *text + " is listed twice");
                good = false;
            } else {
                rule.values.push_back(std::move(*text));
            }
        }
        if (!good) return std::nullopt;
    } else if (tests[0] == "prefix") {
        rule.test = ToolArgumentRule::Test::prefix;
        auto text = pattern_text(written, test_at, "\"acme/\"", check);
        if (!text) return std::nullopt;
        rule.values.push_back(std::move(*text));
    } else {
        rule.test = ToolArgumentRule::Test::matches;
        auto text = pattern_text(written, test_at, "\"acme/[a-z0-9-]+\"", check);
        if (!text) return std::nullopt;
        std::string error;
        if (!compile_tool_pattern(*text, error)) {
            check.fail(test_at, json_quoted(*text) + " is not a pattern RE2 reads (" + error +
                                    "): write an RE2 regular expression, matched against "
                                    "the whole value, as \"acme/[a-z0-9-]+\"");
            return std::nullopt;
        }
        rule.values.push_back(std::move(*text));
    }
    return rule;
}

std::optional<McpToolRule> check_tool_object(const nlohmann::json& value, const std::string& at,
                                             const SpecCheck& check) {
    check_known_fields(value, at, {"name", "arguments"}, "a tool has name and arguments", check);
    bool good = true;
    McpToolRule tool;
    if (!value.contains("name")) {
        check.fail(at, "\"name\" is missing");
        good = false;
    } else if (!value["name"].is_string()) {
        check.fail(at + ".name",
                   "must be a string, a tool name; got " + describe_type(value["name"]));
        good = false;
    } else if (auto problem = tool_name_problem(value["name"].get<std::string>());
               !problem.empty()) {
        check.fail(at + ".name", problem);
        good = false;
    } else {
        tool.name = value["name"].get<std::string>();
    }
    if (!value.contains("arguments")) {
        check.fail(at, "\"arguments\" is missing: give the rules its arguments must satisfy, "
                       "or write the tool as a string");
        return std::nullopt;
    }
    const std::string args_at = at + ".arguments";
    const auto& arguments = value["arguments"];
    const auto within =
        check_collection(arguments, check, args_at, Shape::object,
                         "an object of argument rules, as {\"project\": {\"equals\": \"acme\"}}",
                         spec_limits::max_tool_arguments, "arguments");
    if (!within) return std::nullopt;
    good = *within && good;
    if (arguments.empty()) {
        check.fail(args_at, "is empty: name at least one argument, or write the tool as a string");
        return std::nullopt;
    }
    for (const auto& [argument, rule_value] : arguments.items()) {
        auto rule = check_argument(argument, rule_value, member_path(args_at, argument), check);
        if (rule)
            tool.arguments.push_back(std::move(*rule));
        else
            good = false;
    }
    if (!good) return std::nullopt;
    return tool;
}

} // namespace

bool check_mcp_tools(const nlohmann::json& value, const std::string& at, const SpecCheck& check,
                     McpServer& server) {
    const auto within = check_collection(value, check, at, Shape::array,
                                         "an array of tool names or tools with argument "
                                         "rules, as [\"search\"] or [{\"name\": \"search\", "
                                         "\"arguments\": {...}}]",
                                         spec_limits::max_mcp_tools, "tools");
    if (!within) return false;
    bool good = *within;
    std::map<std::string, std::size_t> first_seen;
    for (std::size_t i = 0; i < value.size(); ++i) {
        const std::string tool_at = index_path(at, i);
        std::string name;
        std::optional<McpToolRule> rules;
        if (value[i].is_string()) {
            name = value[i].get<std::string>();
            if (auto problem = tool_name_problem(name); !problem.empty()) {
                check.fail(tool_at, problem);
                good = false;
                continue;
            }
        } else if (value[i].is_object()) {
            rules = check_tool_object(value[i], tool_at, check);
            if (!rules) {
                good = false;
                continue;
            }
            name = rules->name;
        } else {
            check.fail(tool_at,
                       "must be " + std::string(kToolExample) + "; got " + describe_type(value[i]));
            good = false;
            continue;
        }
        if (const auto [seen, fresh] = first_seen.emplace(name, i); !fresh) {
            check.fail(tool_at, json_quoted(name) + " is listed twice (first at " +
                                    index_path(at, seen->second) + ")");
            good = false;
            continue;
        }
        server.tools.push_back(name);
        if (rules) server.tool_rules.push_back(std::move(*rules));
    }
    return good;
}

} // namespace osf::spec_detail
