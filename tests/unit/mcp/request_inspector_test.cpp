// inspect_request on requests as the MCP TypeScript SDK client sends them.
#include "mcp/json_reader.hpp"
#include "mcp/json_tape.hpp"
#include "mcp/mcp_filter.hpp"
#include "wiki_policy.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using osf::mcp::inspect_request;
using osf::mcp::RequestVerdict;
using osf::mcp::ServerPolicy;
using Action = RequestVerdict::Action;
using nlohmann::json;

using mcp_test::wiki_policy;

namespace {

RequestVerdict inspect(std::string_view body, std::string_view type = "application/json",
                       std::string_view encoding = "") {
    return inspect_request(wiki_policy(4096), type, encoding, body);
}

const char* kInitialize =
    R"({"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test-client","version":"1.0.0"}},"jsonrpc":"2.0","id":0})";
const char* kCallSearch =
    R"({"method":"tools/call","params":{"name":"search","arguments":{"query":"kittens"}},"jsonrpc":"2.0","id":2})";
const char* kCallDelete =
    R"({"method":"tools/call","params":{"name":"delete_everything","arguments":{"really":true}},"jsonrpc":"2.0","id":3})";

} // namespace

TEST_CASE("ordinary requests are forwarded") {
    for (const char* body :
         {kInitialize, kCallSearch, R"({"method":"notifications/initialized","jsonrpc":"2.0"})",
          R"({"method":"tools/list","jsonrpc":"2.0","id":1})",
          R"({"jsonrpc":"2.0","id":"srv-1","result":{}})", // answer to a server request
          R"({"method":"notifications/tools/list_changed","jsonrpc":"2.0"})"}) {
        auto verdict = inspect(body);
        INFO(body);
        CHECK(verdict.action == Action::Forward);
        CHECK_FALSE(verdict.refused_by.has_value());
    }
}

TEST_CASE("a declared tool call passes and is named for the log") {
    auto verdict = inspect(kCallSearch);
    CHECK(verdict.action == Action::Forward);
    CHECK(verdict.tools_called == std::vector<std::string>{"search"});
}

TEST_CASE("an undeclared tool call is answered like an unknown tool") {
    auto verdict = inspect(kCallDelete);
    CHECK(verdict.action == Action::ReplyJsonRpc);
    CHECK(verdict.status == 200);
    CHECK(verdict.refused_by == osf::RefusalReason::mcp_tool);
    CHECK(verdict.tools_called == std::vector<std::string>{"delete_everything"});
    CHECK(
        json::parse(verdict.body) ==
        json::parse(
            R"({"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Unknown tool: delete_everything"}})"));
    // The reason is for the log: no arguments in it.
    CHECK(verdict.reason.find("really") == std::string::npos);
}

TEST_CASE("the refusal carries the request's id whatever its type") {
    auto verdict =
        inspect(R"({"jsonrpc":"2.0","id":"abc-7","method":"tools/call","params":{"name":"rm"}})");
    CHECK(json::parse(verdict.body)["id"] == "abc-7");
    verdict =
        inspect(R"({"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"rm"}})");
    CHECK(json::parse(verdict.body)["id"].is_null());
    verdict = inspect(
        R"({"jsonrpc":"2.0","id":12345678901,"method":"tools/call","params":{"name":"rm"}})");
    CHECK(json::parse(verdict.body)["id"] == 12345678901LL);
}

TEST_CASE("a tools/call without a string tool name is refused") {
    for (const char* body :
         {R"({"jsonrpc":"2.0","id":4,"method":"tools/call"})",
          R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{}})",
          R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":[]})",
          R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":["search"]}})",
          R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":null}})"}) {
        INFO(body);
        auto verdict = inspect(body);
        CHECK(verdict.action == Action::ReplyJsonRpc);
        CHECK(verdict.refused_by == osf::RefusalReason::mcp_tool);
        auto answer = json::parse(verdict.body);
        CHECK(answer["id"] == 4);
        CHECK(answer["error"]["code"] == -32602);
    }
}

TEST_CASE("tool names compare exactly") {
    for (const char* name : {"Search", "search ", "search\\u0000", "searc", "SEARCH"}) {
        std::string body =
            std::string(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":")") +
            name + R"("}})";
        INFO(body);
        CHECK(inspect(body).action == Action::ReplyJsonRpc);
    }
    // An escaped spelling of a declared name is that name.
    CHECK(
        inspect(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"s\u0065arch"}})")
            .action == Action::Forward);
}

TEST_CASE("method names are case-sensitive: Tools/Call is not a tool call") {
    for (const char* method :
         {"Tools/Call", "TOOLS/CALL", "tools/Call", "tools/call ", "tools//call"}) {
        std::string body = std::string(R"({"jsonrpc":"2.0","id":1,"method":")") + method +
                           R"(","params":{"name":"delete_everything"}})";
        INFO(body);
        auto verdict = inspect(body);
        CHECK(verdict.action == Action::Forward);
        CHECK(verdict.tools_called.empty());
    }
}

TEST_CASE("escaped method names decode to the same method") {
    for (const char* method :
         {"tools\\/call", "tools\\u002fcall", "\\u0074ools/call", "tools/cal\\u006C"}) {
        std::string body = std::string(R"({"jsonrpc":"2.0","id":1,"method":")") + method +
                           R"(","params":{"name":"delete_everything"}})";
        INFO(body);
        CHECK(inspect(body).action == Action::ReplyJsonRpc);
    }
    // Escaped member names too.
    CHECK(
        inspect(
            R"({"jsonrpc":"2.0","id":1,"m\u0065thod":"tools/call","p\u0061rams":{"n\u0061me":"x"}})")
            .action == Action::ReplyJsonRpc);
}

TEST_CASE("duplicate keys cannot hide a call") {
    for (
        const char* body :
        {R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","name":"delete_everything"}})",
         R"({"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{"name":"x"}})",
         R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"a":1,"a":2}}})",
         R"([{"jsonrpc":"2.0","id":1,"method":"ping","id":2}])"}) {
        INFO(body);
        auto verdict = inspect(body);
        CHECK(verdict.action == Action::Refuse);
        CHECK(verdict.status == 400);
        CHECK(verdict.refused_by == osf::RefusalReason::mcp_unreadable);
        CHECK(json::parse(verdict.body)["error"]["code"] == -32700);
    }
}

TEST_CASE("a batch with a refused call is answered whole, without the server") {
    std::string batch = std::string("[") + kCallSearch + "," + kCallDelete + "," +
                        R"({"jsonrpc":"2.0","method":"notifications/progress","params":{}},)" +
                        R"({"jsonrpc":"2.0","id":"t","method":"tools/list"}])";
    auto verdict = inspect(batch);
    CHECK(verdict.action == Action::ReplyJsonRpc);
    CHECK(verdict.status == 200);
    CHECK(verdict.refused_by == osf::RefusalReason::mcp_tool);
    CHECK(verdict.tools_called == std::vector<std::string>{"search", "delete_everything"});
    auto answers = json::parse(verdict.body);
    REQUIRE(answers.is_array());
    REQUIRE(answers.size() == 3); // the notification gets nothing
    CHECK(answers[0]["id"] == 2);
    CHECK(answers[0]["error"]["code"] == -32600);
    CHECK(
        answers[1] ==
        json::parse(
            R"({"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Unknown tool: delete_everything"}})"));
    CHECK(answers[2]["id"] == "t");
    CHECK(answers[2]["error"]["code"] == -32600);
}

TEST_CASE("a batch of allowed messages is forwarded and its tools/list ids recorded") {
    std::string batch =
        std::string("[") + kCallSearch +
        R"(,{"jsonrpc":"2.0","id":"L1","method":"tools/list"},{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":"c2"}}])";
    auto verdict = inspect(batch);
    CHECK(verdict.action == Action::Forward);
    CHECK(verdict.tools_list_ids == std::vector<std::string>{"\"L1\"", "9"});
}

TEST_CASE("refused notifications get an empty 202") {
    auto verdict =
        inspect(R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"delete_everything"}})");
    CHECK(verdict.action == Action::ReplyJsonRpc);
    CHECK(verdict.status == 202);
    CHECK(verdict.body.empty());
    CHECK(verdict.refused_by == osf::RefusalReason::mcp_tool);
    verdict = inspect(
        R"([{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"}},{"jsonrpc":"2.0","method":"notifications/initialized"}])");
    CHECK(verdict.action == Action::ReplyJsonRpc);
    CHECK(verdict.status == 202);
}

TEST_CASE("bodies that are not JSON-RPC messages are refused") {
    for (const char* body : {"", "not json", "[]", "42", "\"tools/call\"", "null", "[1]",
                             R"([{"jsonrpc":"2.0","id":1,"method":"ping"},"x"])",
                             R"({"jsonrpc":"2.0","id":1,"method":7})"}) {
        INFO(body);
        auto verdict = inspect(body);
        CHECK(verdict.action == Action::Refuse);
        CHECK(verdict.status == 400);
        CHECK(verdict.refused_by == osf::RefusalReason::mcp_unreadable);
        auto error = json::parse(verdict.body);
        CHECK(error["jsonrpc"] == "2.0");
        CHECK(error["id"].is_null());
        CHECK((error["error"]["code"] == -32700 || error["error"]["code"] == -32600));
    }
}

TEST_CASE("compressed bodies and other content types are refused with 415") {
    for (auto [type, encoding] : std::vector<std::pair<const char*, const char*>>{
             {"application/json", "gzip"},
             {"application/json", "deflate"},
             {"application/json", "br"},
             {"", ""},
             {"text/plain", ""},
             {"application/x-www-form-urlencoded", ""},
             {"application/json; charset=utf-16", ""},
             {"multipart/form-data; boundary=x", ""}}) {
        INFO(type << " / " << encoding);
        auto verdict = inspect(kCallSearch, type, encoding);
        CHECK(verdict.action == Action::Refuse);
        CHECK(verdict.status == 415);
        CHECK(verdict.refused_by == osf::RefusalReason::mcp_unreadable);
    }
    CHECK(inspect(kCallSearch, "application/json; charset=utf-8", "identity").action ==
          Action::Forward);
}

TEST_CASE("bodies over the size limit are refused with 413") {
    std::string big =
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"q":")" +
        std::string(5000, 'a') + "\"}}}";
    auto verdict = inspect(big);
    CHECK(verdict.action == Action::Refuse);
    CHECK(verdict.status == 413);
    CHECK(verdict.refused_by == osf::RefusalReason::mcp_unreadable);
    std::string exact = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"p":")";
    exact += std::string(4096 - exact.size() - 3, 'b') + "\"}}";
    REQUIRE(exact.size() == 4096);
    CHECK(inspect(exact).action == Action::Forward);
}

TEST_CASE("refusals echo the id exactly as the client spelled it") {
    auto verdict = inspect(
        R"({"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"tools/call","params":{"name":"x"}})");
    CHECK(verdict.body.find(R"("id":123456789012345678901234567890,)") != std::string::npos);
    verdict = inspect(
        R"({"jsonrpc":"2.0","id":"\u0061\/b","method":"tools/call","params":{"name":"x"}})");
    CHECK(verdict.body.find(R"("id":"\u0061\/b",)") != std::string::npos);
    CHECK(json::parse(verdict.body)["id"] == "a/b");
    // A number no double holds comes back as sent too: the answer is still JSON,
    // for readers that keep numbers as text (nlohmann refuses it).
    verdict = inspect(R"({"id":2e409,"method":"tools/call"})");
    CHECK(verdict.body.find(R"("id":2e409,)") != std::string::npos);
    CHECK(osf::mcp::JsonTape::read(verdict.body).has_value());
}

TEST_CASE("tools/list ids are recorded in one canonical spelling") {
    auto verdict = inspect(
        R"([{"jsonrpc":"2.0","id":"\u0061","method":"tools/list"},{"jsonrpc":"2.0","id":1.0,"method":"tools/list"}])");
    CHECK(verdict.tools_list_ids == std::vector<std::string>{"\"a\"", "1.0"});
}

TEST_CASE("tool names and error messages with special characters stay valid JSON") {
    auto verdict = inspect(
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a\"b\u0000c\u00e9"}})");
    CHECK(json::parse(verdict.body)["error"]["message"] ==
          std::string("Unknown tool: a\"b\0c\xC3\xA9", 21));
}

TEST_CASE("a batch of more than kMaxBatchMessages messages is refused unread") {
    auto batch = [](std::size_t n) {
        std::string body = "[";
        for (std::size_t i = 0; i < n; ++i)
            body += std::string(i ? "," : "") + R"({"jsonrpc":"2.0","method":"ping","id":)" +
                    std::to_string(i) + "}";
        return body + "]";
    };
    const auto policy = wiki_policy(4 * 1024 * 1024);
    const auto fits =
        inspect_request(policy, "application/json", "", batch(osf::mcp::kMaxBatchMessages));
    CHECK(fits.action == Action::Forward);
    const auto over =
        inspect_request(policy, "application/json", "", batch(osf::mcp::kMaxBatchMessages + 1));
    CHECK(over.action == Action::Refuse);
    CHECK(over.status == 413);
    CHECK(json::parse(over.body)["error"]["code"] == -32600);
}

namespace {

// wiki with search limited to the "acme" space.
ServerPolicy wiki_with_argument_rules() {
    auto policy = wiki_policy(4096);
    osf::McpToolRule search;
    search.name = "search";
    search.arguments = {{"space", osf::ToolArgumentRule::Test::equals, {"\"acme\""}}};
    policy.tool_arguments.emplace("search", osf::mcp::compile_tool_arguments("wiki", search));
    return policy;
}

RequestVerdict inspect_ruled(std::string_view body) {
    return inspect_request(wiki_with_argument_rules(), "application/json", "", body);
}

} // namespace

TEST_CASE("a call whose arguments pass its tool's rules is forwarded") {
    auto verdict = inspect_ruled(
        R"({"method":"tools/call","params":{"name":"search","arguments":{"space":"acme","query":"x"}},"jsonrpc":"2.0","id":7})");
    CHECK(verdict.action == Action::Forward);
    CHECK(verdict.tools_called == std::vector<std::string>{"search"});
    CHECK(verdict.rule.empty());
}

TEST_CASE("a call whose arguments its rules refuse is answered with the rule, not the value") {
    auto verdict = inspect_ruled(
        R"({"method":"tools/call","params":{"name":"search","arguments":{"space":"payroll","query":"x"}},"jsonrpc":"2.0","id":7})");
    CHECK(verdict.action == Action::ReplyJsonRpc);
    CHECK(verdict.status == 200);
    CHECK(verdict.refused_by == osf::RefusalReason::tool_argument_not_allowed);
    CHECK(verdict.rule == "wiki:search#space");
    CHECK(verdict.tools_called == std::vector<std::string>{"search"});
    CHECK(json::parse(verdict.body) ==
          json::parse(R"x({"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":
            "Tool argument not allowed: \"space\" must be \"acme\" (rule wiki:search#space)"
}
})x"));
    CHECK(verdict.body.find("payroll") == std::string::npos);
    // A tool without rules on the same server is not affected.
    CHECK(
        inspect_ruled(
            R"({"method":"tools/call","params":{"name":"fetch_page","arguments":{}},"jsonrpc":"2.0","id":8})")
            .action == Action::Forward);
}

TEST_CASE("a batch with a refused argument answers every request; an unknown tool outweighs it") {
    auto verdict = inspect_ruled(
        R"([{"method":"tools/call","params":{"name":"search","arguments":{"space":"acme"}},"jsonrpc":"2.0","id":1},
            {"method":"tools/call","params":{"name":"search","arguments":{}},"jsonrpc":"2.0","id":2},
            {"method":"notifications/initialized","jsonrpc":"2.0"}])");
    CHECK(verdict.action == Action::ReplyJsonRpc);
    CHECK(verdict.refused_by == osf::RefusalReason::tool_argument_not_allowed);
    CHECK(verdict.rule == "wiki:search#space");
    const auto answers = json::parse(verdict.body);
    REQUIRE(answers.size() == 2);
    CHECK(answers[0]["error"]["message"] ==
          "Batch refused: it contains a tool call whose arguments are not allowed");
    CHECK(answers[1]["error"]["message"] == "Tool argument not allowed: \"space\" is missing; it "
                                            "must be \"acme\" (rule wiki:search#space)");

    auto mixed = inspect_ruled(
        R"([{"method":"tools/call","params":{"name":"search","arguments":{}},"jsonrpc":"2.0","id":1},
            {"method":"tools/call","params":{"name":"drop_tables"},"jsonrpc":"2.0","id":2}])");
    CHECK(mixed.refused_by == osf::RefusalReason::mcp_tool);
    CHECK(mixed.rule.empty());
}
