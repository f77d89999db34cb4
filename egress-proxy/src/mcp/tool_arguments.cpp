#include "mcp/tool_arguments.hpp"

#include "mcp/jsonrpc.hpp"
#include "osf/tool_pattern.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace osf::mcp {

namespace {

using Kind = JsonTape::Kind;
using Test = ToolArgumentRule::Test;

// At most this many of an `in` list's values are spelled out in a refusal.
constexpr std::size_t kValuesShown = 8;

std::string json_literal(std::string_view text) {
    return nlohmann::json(std::string(text)).dump();
}

std::string requirement_of(const ToolArgumentRule& rule) {
    switch (rule.test) {
    case Test::equals:
        return "must be " + rule.values.front();
    case Test::in: {
        std::string out = "must be one of ";
        for (std::size_t i = 0; i < rule.values.size() && i < kValuesShown; ++i)
            out += (i ? ", " : "") + rule.values[i];
        if (rule.values.size() > kValuesShown)
            out += ", ... (" + std::to_string(rule.values.size()) + " values)";
        return out;
    }
    case Test::prefix:
        return "must be a string starting with " + json_literal(rule.values.front());
    case Test::matches:
        return "must be a string matching the pattern " + json_literal(rule.values.front());
    }
    return {};
}

// A string's content without allocating when it holds no escape.
std::string_view string_content(const JsonTape& tape, std::uint32_t entry, std::string& scratch) {
    const auto& e = tape.at(entry);
    const auto span = tape.span(entry);
    if (!e.escaped) return span.substr(1, span.size() - 2);
    scratch = tape.string_value(entry);
    return scratch;
}

bool passes(const ArgumentCheck& check, const JsonTape& tape, std::uint32_t value) {
    const Kind kind = tape.at(value).kind;
    std::string scratch;
    if (check.test == Test::prefix || check.test == Test::matches) {
        if (kind != Kind::String) return false;
        const auto text = string_content(tape, value, scratch);
        return check.test == Test::prefix ? text.starts_with(check.prefix)
                                          : tool_pattern_matches(*check.pattern, text);
    }
    if (kind == Kind::String) {
        const auto text = string_content(tape, value, scratch);
        return std::find(check.strings.begin(), check.strings.end(), text) != check.strings.end();
    }
    if (kind == Kind::Number || kind == Kind::True || kind == Kind::False) {
        if (check.others.empty()) return false;
        const std::string text =
            kind == Kind::Number ? canonical_json(tape.span(value)) : std::string(tape.span(value));
        return std::find(check.others.begin(), check.others.end(), text) != check.others.end();
    }
    return false; // objects, arrays, null
}

} // namespace

ToolArguments compile_tool_arguments(std::string_view server, const McpToolRule& tool) {
    ToolArguments out;
    const std::string base = std::string(server) + ":" + tool.name + "#";
    out.tool_rule = base + "arguments";
    for (const auto& rule : tool.arguments) {
        ArgumentCheck check;
        check.argument = rule.argument;
        check.test = rule.test;
        check.rule = base + rule.argument;
        check.requirement = requirement_of(rule);
        switch (rule.test) {
        case Test::equals:
        case Test::in:
            for (const auto& value : rule.values) {
                const auto read = nlohmann::json::parse(value);
                if (read.is_string())
                    check.strings.push_back(read.get<std::string>());
                else
                    check.others.push_back(value);
            }
            break;
        case Test::prefix:
            check.prefix = rule.values.front();
            break;
        case Test::matches: {
            std::string error;
            check.pattern = compile_tool_pattern(rule.values.front(), error);
            // The validator compiled the same text with the same options.
            if (!check.pattern)
                throw std::invalid_argument("tool argument pattern does not compile: " + error);
            break;
        }
        }
        out.checks.push_back(std::move(check));
    }
    return out;
}

std::optional<ArgumentRefusal> judge_arguments(const ToolArguments& rules, const JsonTape& tape,
                                               std::optional<std::uint32_t> arguments) {
    if (arguments && tape.at(*arguments).kind != Kind::Object)
        return ArgumentRefusal{rules.tool_rule,
                               "Tool argument not allowed: arguments must be an object (rule " +
                                   rules.tool_rule + ")"};
    for (const auto& check : rules.checks) {
        const auto value = arguments ? tape.member(*arguments, check.argument) : std::nullopt;
        if (!value)
            return ArgumentRefusal{check.rule,
                                   "Tool argument not allowed: " + json_literal(check.argument) +
                                       " is missing; it " + check.requirement + " (rule " +
                                       check.rule + ")"};
        if (!passes(check, tape, *value))
            return ArgumentRefusal{check.rule,
                                   "Tool argument not allowed: " + json_literal(check.argument) +
                                       " " + check.requirement + " (rule " + check.rule + ")"};
    }
    return std::nullopt;
}

} // namespace osf::mcp
