// MCP tool-argument rules as the proxy applies them to a tools/call: compiled
// once when the policy is loaded (patterns included), then a pure judgement
// of one call's `params.arguments`.
//
// What a call must satisfy (egress-proxy/README.md says it for users):
// - every argument a rule names must be present and pass its test; a missing
//   one is refused (a rule that could be skipped by leaving the argument out
//   would allow the server's default, which the rule did not choose);
// - arguments no rule names are not looked at (a rule constrains what it
//   names; the tool's own schema decides the rest);
// - `equals`/`in` compare strings after JSON unescaping, byte for byte, and
//   numbers and booleans by their JSON text as the spec's reader writes it
//   (so 3 and 3.0 differ); objects, arrays and null never equal anything;
// - `prefix`/`matches` apply to strings only: any other value is refused.
#pragma once

#include "mcp/json_tape.hpp"
#include "osf/spec.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace osf::mcp {

// One argument rule, ready to apply.
struct ArgumentCheck {
    std::string argument;
    ToolArgumentRule::Test test = ToolArgumentRule::Test::equals;
    std::vector<std::string> strings;        // equals/in: allowed strings, unescaped
    std::vector<std::string> others;         // equals/in: allowed numbers/booleans, JSON text
    std::string prefix;                      // prefix
    std::shared_ptr<const re2::RE2> pattern; // matches
    std::string rule;                        // "<server>:<tool>#<argument>", for the log
    std::string requirement;                 // "must start with \"acme/\"", from the spec
};

// Every argument rule of one tool.
struct ToolArguments {
    std::string tool_rule; // "<server>:<tool>#arguments": a call whose arguments are no object
    std::vector<ArgumentCheck> checks;
};

// Compiles a tool's rules (valid: the spec validator compiled the same patterns).
ToolArguments compile_tool_arguments(std::string_view server, const McpToolRule& tool);

// Why a call may not pass: the rule (for the log) and a sentence naming the
// argument and what the rule requires, never the value the call carried.
struct ArgumentRefusal {
    std::string rule;
    std::string message;
};

// Judges a call's arguments: `arguments` is the tape index of
// `params.arguments`, unset when the call has none. nullopt: it may pass.
std::optional<ArgumentRefusal> judge_arguments(const ToolArguments& rules, const JsonTape& tape,
                                               std::optional<std::uint32_t> arguments);

} // namespace osf::mcp
