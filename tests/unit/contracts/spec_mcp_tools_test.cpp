// An MCP server's tools written as {"name", "arguments"}: what the validator
// reads, and the one-line error each mistake gets.
#include "spec_test_support.hpp"

#include <catch2/catch.hpp>

using namespace spec_test;
using Test = osf::ToolArgumentRule::Test;

namespace {

std::string tools(const std::string& list) {
    return spec_with(
        R"("mcp": [{"name": "tracker", "url": "https://tracker.example.com/mcp", "tools": )" +
        list + "}]");
}

std::string one_tool(const std::string& arguments) {
    return tools(R"([{"name": "create_issue", "arguments": )" + arguments + "}]");
}

} // namespace

TEST_CASE("tools with argument rules are read, names listed with the plain ones") {
    const auto spec = valid_spec(tools(R"(["search", {"name": "create_issue", "arguments": {
        "project": {"equals": "acme"},
        "labels": {"in": ["bug", 3, true]},
        "path": {"prefix": "acme/"},
        "title": {"matches": "[A-Z][a-z ]{0,40}"}}}])"));
    REQUIRE(spec.mcp.size() == 1);
    const auto& server = spec.mcp.front();
    CHECK(server.tools == std::vector<std::string>{"search", "create_issue"});
    REQUIRE(server.tool_rules.size() == 1);
    const auto& tool = server.tool_rules.front();
    CHECK(tool.name == "create_issue");
    REQUIRE(tool.arguments.size() == 4);
    // nlohmann's object order: by name.
    CHECK(tool.arguments[0].argument == "labels");
    CHECK(tool.arguments[0].test == Test::in);
    CHECK(tool.arguments[0].values == std::vector<std::string>{"\"bug\"", "3", "true"});
    CHECK(tool.arguments[1].argument == "path");
    CHECK(tool.arguments[1].test == Test::prefix);
    CHECK(tool.arguments[1].values == std::vector<std::string>{"acme/"});
    CHECK(tool.arguments[2].argument == "project");
    CHECK(tool.arguments[2].test == Test::equals);
    CHECK(tool.arguments[2].values == std::vector<std::string>{"\"acme\""});
    CHECK(tool.arguments[3].test == Test::matches);
    CHECK(tool.arguments[3].values == std::vector<std::string>{"[A-Z][a-z ]{0,40}"});
}

TEST_CASE("each mistake in a tool's argument rules is one error at its path") {
    struct Case {
        std::string tools;
        std::string error;
    };
    const std::string at = "$.mcp[0].tools[0]";
    const std::vector<Case> cases = {
        {R"([{"name": "t"}])", at + ": \"arguments\" is missing: give the rules its arguments "
                                    "must satisfy, or write the tool as a string"},
        {R"([{"name": "t", "arguments": {}}])",
         at + ".arguments: is empty: name at least one argument, or write the tool as a string"},
        {R"([{"name": "t", "arguments": []}])", at + ".arguments: must be an object of argument "
                                                     "rules, as {\"project\": {\"equals\": "
                                                     "\"acme\"}}; got an array"},
        {R"([{"arguments": {"a": {"equals": 1}}}])", at + ": \"name\" is missing"},
        {R"([{"name": "", "arguments": {"a": {"equals": 1}}}])",
         at + ".name: is empty: name a tool the server offers"},
        {R"([{"name": "t", "arguments": {"a": {"equals": 1}}, "mode": "audit"}])", ""},
        {R"([{"name": "t", "arguments": {"a": {}}}])",
         at + ".arguments.a: has no test: give it an object with one test: {\"equals\": \"acme\"}, "
              "{\"in\": [\"a\", \"b\"]}, {\"prefix\": \"acme/\"} or {\"matches\": "
              "\"acme/[a-z-]+\"}"},
        {R"([{"name": "t", "arguments": {"a": {"equals": 1, "prefix": "x"}}}])",
         at + ".arguments.a: has 2 tests: give it exactly one (equals or prefix), or write a "
              "`matches` pattern"},
        {R"([{"name": "t", "arguments": {"a": {"equals": null}}}])",
         at + ".arguments.a.equals: must be a string, a number or a boolean (the value the "
              "argument must have); got null"},
        {R"([{"name": "t", "arguments": {"a": {"in": []}}}])",
         at + ".arguments.a.in: is empty: it would allow no call at all; list the values "
              "allowed, or leave the tool out"},
        {R"([{"name": "t", "arguments": {"a": {"in": ["x", "x"]}}}])",
         at + ".arguments.a.in[1]: \"x\" is listed twice"},
        {R"([{"name": "t", "arguments": {"a": {"prefix": ""}}}])",
         at + ".arguments.a.prefix: is empty: it would allow every value; leave the argument out "
              "instead"},
        {R"([{"name": "t", "arguments": {"a": {"prefix": 3}}}])",
         at + ".arguments.a.prefix: must be a string, as \"acme/\"; got a number"},
        {R"([{"name": "t", "arguments": {"a": {"matches": "acme/[a-z"}}}])",
         at + ".arguments.a.matches: \"acme/[a-z\" is not a pattern RE2 reads (missing ]: [a-z): "
              "write an RE2 regular expression, matched against the whole value, as "
              "\"acme/[a-z0-9-]+\""},
        {R"([{"name": "t", "arguments": {"a": {"matches": "(a)\\1"}}}])",
         at + ".arguments.a.matches: \"(a)\\\\1\" is not a pattern RE2 reads (invalid escape "
              "sequence: \\1): write an RE2 regular expression, matched against the whole "
              "value, as \"acme/[a-z0-9-]+\""},
        {R"([{"name": "t", "arguments": {"a": {"matches": "a\nb"}}}])",
         at + ".arguments.a.matches: \"a\\nb\" holds a control character (a pattern writes one "
              "as \\n, \\t...)"},
        {R"([{"name": "t", "arguments": {"": {"equals": 1}}}])",
         at + ".arguments['']: an argument name is empty: name an argument of the tool"},
        {R"(["t", {"name": "t", "arguments": {"a": {"equals": 1}}}])",
         "$.mcp[0].tools[1]: \"t\" is listed twice (first at $.mcp[0].tools[0])"},
        {R"([3])", at + ": must be a tool name, as \"search\", or {\"name\": \"search\", "
                        "\"arguments\": {\"project\": {\"equals\": \"acme\"}}}; got a number"},
    };
    for (const auto& c : cases) {
        INFO(c.tools);
        const auto errors = errors_of(tools(c.tools));
        REQUIRE(errors.size() == 1);
        if (!c.error.empty()) CHECK(errors.front() == c.error);
    }
}

TEST_CASE("a pattern RE2 would need too much memory for is refused when the spec is read") {
    const auto errors =
        errors_of(one_tool(R"x({"a": {"matches": "\\pL{1000}\\pL{1000}\\pL{1000}"}})x"));
    REQUIRE(errors.size() == 1);
    CHECK(errors.front().starts_with("$.mcp[0].tools[0].arguments.a.matches: "));
    CHECK(errors.front().find("pattern too large") != std::string::npos);
    CHECK(errors.front().find('\n') == std::string::npos);
}
