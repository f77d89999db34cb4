// judge_arguments: a tools/call's arguments against its tool's rules, as a table.
#include "mcp/json_tape.hpp"
#include "mcp/tool_arguments.hpp"

#include <catch2/catch.hpp>

using osf::McpToolRule;
using osf::ToolArgumentRule;
using osf::mcp::compile_tool_arguments;
using osf::mcp::JsonTape;
using osf::mcp::judge_arguments;
using Test = ToolArgumentRule::Test;

namespace {

// The rules of tracker:create_issue: one of each test.
osf::mcp::ToolArguments tracker_rules() {
    McpToolRule tool;
    tool.name = "create_issue";
    tool.arguments = {
        {"project", Test::equals, {"\"acme\""}},
        {"priority", Test::in, {"\"low\"", "3", "true"}},
        {"path", Test::prefix, {"acme/"}},
        {"title", Test::matches, {"[A-Z][a-z ]{0,20}"}},
    };
    return compile_tool_arguments("tracker", tool);
}

// The refusal's rule for `arguments` (the JSON text of params.arguments, empty:
// none), "" when the call passes.
std::string rule_for(const std::string& arguments) {
    static const auto rules = tracker_rules();
    const std::string body =
        arguments.empty() ? R"({"name":"create_issue"})" : R"({"arguments":)" + arguments + "}";
    auto tape = JsonTape::read(body);
    REQUIRE(tape);
    const auto refusal = judge_arguments(rules, *tape, tape->member(JsonTape::root(), "arguments"));
    return refusal ? refusal->rule : "";
}

std::string with(const std::string& member) {
    std::string base = R"("project":"acme","priority":"low","path":"acme/x","title":"Bug")";
    return "{" + base + (member.empty() ? "" : "," + member) + "}";
}

} // namespace

TEST_CASE("tool arguments: each test, passing and refused") {
    struct Case {
        std::string arguments;
        std::string rule; // "" = passes
    };
    const std::vector<Case> cases = {
        {with(""), ""},
        {with(R"("extra":{"any":"thing"})"), ""}, // arguments no rule names: not looked at
        // equals: strings after unescaping, byte for byte
        {R"({"project":"\u0061cme","priority":"low","path":"acme/x","title":"Bug"})", ""},
        {R"({"project":"Acme","priority":"low","path":"acme/x","title":"Bug"})",
         "tracker:create_issue#project"},
        {R"({"project":"acme ","priority":"low","path":"acme/x","title":"Bug"})",
         "tracker:create_issue#project"},
        {R"({"project":["acme"],"priority":"low","path":"acme/x","title":"Bug"})",
         "tracker:create_issue#project"},
        {R"({"project":null,"priority":"low","path":"acme/x","title":"Bug"})",
         "tracker:create_issue#project"},
        // missing: refused
        {R"({"priority":"low","path":"acme/x","title":"Bug"})", "tracker:create_issue#project"},
        {"", "tracker:create_issue#project"},
        {"{}", "tracker:create_issue#project"},
        // not an object
        {"[]", "tracker:create_issue#arguments"},
        {R"("acme")", "tracker:create_issue#arguments"},
        // in: strings, numbers and booleans by their JSON text
        {R"({"project":"acme","priority":3,"path":"acme/x","title":"Bug"})", ""},
        {R"({"project":"acme","priority":true,"path":"acme/x","title":"Bug"})", ""},
        {R"({"project":"acme","priority":3.0,"path":"acme/x","title":"Bug"})",
         "tracker:create_issue#priority"},
        {R"({"project":"acme","priority":"3","path":"acme/x","title":"Bug"})",
         "tracker:create_issue#priority"},
        {R"({"project":"acme","priority":false,"path":"acme/x","title":"Bug"})",
         "tracker:create_issue#priority"},
        {R"({"project":"acme","priority":"true","path":"acme/x","title":"Bug"})",
         "tracker:create_issue#priority"},
        // prefix: strings only
        {R"({"project":"acme","priority":"low","path":"acme/","title":"Bug"})", ""},
        {R"({"project":"acme","priority":"low","path":"acme","title":"Bug"})",
         "tracker:create_issue#path"},
        {R"({"project":"acme","priority":"low","path":"other/acme/","title":"Bug"})",
         "tracker:create_issue#path"},
        {R"({"project":"acme","priority":"low","path":"\u0061cme/\u00e9","title":"Bug"})", ""},
        {R"({"project":"acme","priority":"low","path":1,"title":"Bug"})",
         "tracker:create_issue#path"},
        // matches: anchored at both ends, strings only
        {R"({"project":"acme","priority":"low","path":"acme/x","title":"Bug in login"})", ""},
        {R"({"project":"acme","priority":"low","path":"acme/x","title":"bug"})",
         "tracker:create_issue#title"},
        {R"({"project":"acme","priority":"low","path":"acme/x","title":"Bug!"})",
         "tracker:create_issue#title"},
        {R"({"project":"acme","priority":"low","path":"acme/x","title":"xBug"})",
         "tracker:create_issue#title"},
        {R"({"project":"acme","priority":"low","path":"acme/x","title":"Bug\n"})",
         "tracker:create_issue#title"},
        {R"({"project":"acme","priority":"low","path":"acme/x","title":"Baaaaaaaaaaaaaaaaaaaaaaaaaa"})",
         "tracker:create_issue#title"},
        {R"({"project":"acme","priority":"low","path":"acme/x","title":true})",
         "tracker:create_issue#title"},
        // the first rule that refuses is named
        {R"({"project":"x","priority":"x","path":"x","title":"x"})",
         "tracker:create_issue#project"},
    };
    for (const auto& c : cases) {
        INFO(c.arguments);
        CHECK(rule_for(c.arguments) == c.rule);
    }
}

TEST_CASE("a refusal names the argument, the rule and what it requires, never the value") {
    const auto rules = tracker_rules();
    auto tape = JsonTape::read(
        R"({"project":"acme","priority":"low","path":"secret-place/x","title":"Bug"})");
    REQUIRE(tape);
    const auto refusal = judge_arguments(rules, *tape, JsonTape::root());
    REQUIRE(refusal);
    CHECK(refusal->rule == "tracker:create_issue#path");
    CHECK(refusal->message == "Tool argument not allowed: \"path\" must be a string starting "
                              "with \"acme/\" (rule tracker:create_issue#path)");
    CHECK(refusal->message.find("secret-place") == std::string::npos);

    auto missing = JsonTape::read(R"({"priority":"low"})");
    REQUIRE(missing);
    CHECK(judge_arguments(rules, *missing, JsonTape::root())->message ==
          "Tool argument not allowed: \"project\" is missing; it must be \"acme\" (rule "
          "tracker:create_issue#project)");
    auto bad_in = JsonTape::read(R"({"project":"acme","priority":"urgent"})");
    REQUIRE(bad_in);
    CHECK(judge_arguments(rules, *bad_in, JsonTape::root())->message ==
          "Tool argument not allowed: \"priority\" must be one of \"low\", 3, true (rule "
          "tracker:create_issue#priority)");
}

TEST_CASE("a pattern costs time linear in the argument: no backtracking blow-up") {
    McpToolRule tool;
    tool.name = "t";
    tool.arguments = {{"a", Test::matches, {"(a+)+b"}}};
    const auto rules = compile_tool_arguments("s", tool);
    const std::string value(100000, 'a');
    const std::string body = R"({"a":")" + value + "\"}";
    auto tape = JsonTape::read(body);
    REQUIRE(tape);
    // A backtracking engine takes 2^100000 steps here; RE2 answers at once.
    CHECK(judge_arguments(rules, *tape, JsonTape::root())->rule == "s:t#a");
}
