#include "mcp/mcp_filter.hpp"
#include "mcp/routing_headers.hpp"

#include <catch2/catch.hpp>

using osf::mcp::decode_routing_value;
using osf::mcp::RoutedMessage;
using osf::mcp::routing_mismatch;
using osf::mcp::RoutingHeaders;

TEST_CASE("routing header values decode as the specification encodes them", "[routing]") {
    CHECK(decode_routing_value("search") == std::optional<std::string>("search"));
    CHECK(decode_routing_value("=?base64?c2VhcmNo?=") == std::optional<std::string>("search"));
    CHECK(decode_routing_value("=?base64?w6k=?=") == std::optional<std::string>("\xc3\xa9"));
    CHECK(decode_routing_value("=?base64?"
                               "?=") == std::optional<std::string>("")); // no trigraph
    CHECK_FALSE(decode_routing_value("=?BASE64?c2VhcmNo?="));            // read literally by some
    CHECK_FALSE(decode_routing_value("=?base64?c2VhcmNo"));
    CHECK_FALSE(decode_routing_value("c2VhcmNo?="));
    CHECK_FALSE(decode_routing_value("=?base64?!!!!?="));
    CHECK_FALSE(decode_routing_value("=?base64?c?="));
    CHECK_FALSE(decode_routing_value("a\x01"));
    CHECK_FALSE(decode_routing_value("caf\xc3\xa9"));
}

namespace {

using Fields = std::vector<std::string_view>;

RoutingHeaders headers(Fields method, Fields name = {}, Fields tool_name = {},
                       Fields prompt_name = {}, Fields resource = {}) {
    RoutingHeaders h;
    h.method = std::move(method);
    h.name = std::move(name);
    h.tool_name = std::move(tool_name);
    h.prompt_name = std::move(prompt_name);
    h.resource = std::move(resource);
    return h;
}

} // namespace

TEST_CASE("routing headers must say what the body says", "[routing]") {
    const RoutedMessage call{"tools/call", "search", std::nullopt};
    const RoutedMessage read{"resources/read", std::nullopt, "file:///a"};
    const RoutedMessage prompt{"prompts/get", "greet", std::nullopt};
    const RoutedMessage list{"tools/list", std::nullopt, std::nullopt};
    const RoutedMessage answer{std::nullopt, std::nullopt, std::nullopt};
    struct Case {
        const char* what;
        RoutingHeaders headers;
        std::vector<RoutedMessage> body;
        bool agrees;
    };
    const std::vector<Case> cases = {
        {"no headers", RoutingHeaders{}, {call}, true},
        {"no headers, a batch", RoutingHeaders{}, {call, list}, true},
        {"method and name agree", headers({"tools/call"}, {"search"}), {call}, true},
        {"name base64-encoded", headers({"tools/call"}, {"=?base64?c2VhcmNo?="}), {call}, true},
        {"only the method", headers({"tools/list"}), {list}, true},
        {"a resource's uri", headers({"resources/read"}, {"file:///a"}), {read}, true},
        {"a prompt's name", headers({"prompts/get"}, {"greet"}), {prompt}, true},
        {"another tool named", headers({"tools/call"}, {"delete_everything"}), {call}, false},
        {"another method named", headers({"tools/list"}), {call}, false},
        {"a method differing in case", headers({"Tools/Call"}), {call}, false},
        {"a name on a message with none", headers({"tools/list"}, {"search"}), {list}, false},
        {"a name where a uri is read", headers({"resources/read"}, {"search"}), {read}, false},
        {"a method on an answer", headers({"tools/call"}), {answer}, false},
        {"two Mcp-Method fields", headers({"tools/call", "tools/call"}), {call}, false},
        {"two Mcp-Name fields", headers({}, {"search", "delete_everything"}), {call}, false},
        {"headers on a batch", headers({"tools/call"}, {"search"}), {call, list}, false},
        {"an undecodable name", headers({"tools/call"}, {"=?base64?***?="}), {call}, false},
        {"draft: Mcp-Tool-Name agrees", headers({}, {}, {"search"}), {call}, true},
        {"draft: Mcp-Tool-Name differs", headers({}, {}, {"delete_everything"}), {call}, false},
        {"draft: Mcp-Tool-Name on another method", headers({}, {}, {"search"}), {list}, false},
        {"draft: Mcp-Prompt-Name", headers({}, {}, {}, {"greet"}), {prompt}, true},
        {"draft: Mcp-Resource differs", headers({}, {}, {}, {}, {"file:///b"}), {read}, false},
    };
    for (const auto& c : cases) {
        INFO(c.what);
        CHECK(routing_mismatch(c.headers, c.body).empty() == c.agrees);
    }
}

TEST_CASE("inspect_request refuses headers that disagree with the body", "[routing]") {
    const osf::mcp::ServerPolicy policy{"wiki", {"search"}, 1 << 20};
    const std::string body =
        R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search"}})";
    const auto agree = headers({"tools/call"}, {"search"});
    auto ok = osf::mcp::inspect_request(policy, "application/json", "", body, agree);
    CHECK(ok.action == osf::mcp::RequestVerdict::Action::Forward);
    CHECK(ok.methods == std::vector<std::string>{"tools/call"});

    const auto undeclared = headers({"tools/call"}, {"delete_everything"});
    auto refused = osf::mcp::inspect_request(policy, "application/json", "", body, undeclared);
    CHECK(refused.action == osf::mcp::RequestVerdict::Action::Refuse);
    CHECK(refused.status == 400);
    CHECK(refused.refused_by == osf::RefusalReason::mcp_tool);
    CHECK(refused.body.find("-32020") != std::string::npos);
    CHECK(refused.body.find(R"("id":7)") != std::string::npos);

    const auto other_method = headers({"tools/list"});
    auto mismatch = osf::mcp::inspect_request(policy, "application/json", "", body, other_method);
    CHECK(mismatch.action == osf::mcp::RequestVerdict::Action::Refuse);
    CHECK(mismatch.refused_by == osf::RefusalReason::mcp_unreadable);
}

TEST_CASE("inspect_request names every method once, for the log", "[routing]") {
    const osf::mcp::ServerPolicy policy{"wiki", {"search"}, 1 << 20};
    const std::string batch =
        R"([{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"a"}},)"
        R"({"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"p"}},)"
        R"({"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"b"}},)"
        R"({"jsonrpc":"2.0","id":4,"result":{}}])";
    auto verdict = osf::mcp::inspect_request(policy, "application/json", "", batch);
    CHECK(verdict.action == osf::mcp::RequestVerdict::Action::Forward);
    CHECK(verdict.methods == std::vector<std::string>{"resources/read", "prompts/get"});
}

TEST_CASE("the methods named for the log are bounded in count", "[routing]") {
    const osf::mcp::ServerPolicy policy{"wiki", {"search"}, 1 << 20};
    std::string batch = "[";
    for (int i = 0; i < 40; ++i)
        batch += (i ? "," : "") + std::string(R"({"jsonrpc":"2.0","method":"m)") +
                 std::to_string(i) + R"("})";
    batch += "]";
    auto verdict = osf::mcp::inspect_request(policy, "application/json", "", batch);
    REQUIRE(verdict.methods.size() == 16);
    CHECK(verdict.methods.front() == "m0");
    CHECK(verdict.methods.back() == "m15");
}
