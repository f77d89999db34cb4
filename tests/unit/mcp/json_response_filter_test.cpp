// filter_json_response on answers as the MCP TypeScript SDK server sends them.
#include "mcp/mcp_filter.hpp"
#include "wiki_policy.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using nlohmann::json;
using osf::mcp::filter_json_response;
using osf::mcp::ServerPolicy;

using mcp_test::wiki_policy;

namespace {

const char* kToolsList =
    R"({"result":{"tools":[)"
    R"({"name":"search","title":"Search","description":"Search the wiki","inputSchema":{"type":"object","properties":{"query":{"type":"string"}},"required":["query"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}},)"
    R"({"name":"delete_everything","description":"Deletes everything","inputSchema":{"type":"object","properties":{}}},)"
    R"({"name":"fetch_page","description":"Fetch a page","inputSchema":{"type":"object","properties":{"url":{"type":"string"}}},"annotations":{"readOnlyHint":true}}],)"
    R"("nextCursor":"page-2","_meta":{"x":1.5}},"jsonrpc":"2.0","id":1})";

} // namespace

TEST_CASE("a tools/list answer loses undeclared tools and keeps everything else") {
    auto filtered = filter_json_response(wiki_policy(), kToolsList);
    REQUIRE(filtered);
    CHECK(filtered->tools_removed == 1);
    auto expected = json::parse(kToolsList);
    expected["result"]["tools"].erase(1);
    CHECK(json::parse(filtered->body) == expected);
    // Key order and number format are kept: the body is the original minus one tool.
    std::string original = kToolsList;
    std::string removed =
        R"({"name":"delete_everything","description":"Deletes everything","inputSchema":{"type":"object","properties":{}}},)";
    original.erase(original.find(removed), removed.size());
    CHECK(filtered->body == original);
}

TEST_CASE("pagination: nextCursor stays, even when every tool on the page is removed") {
    auto filtered = filter_json_response(
        wiki_policy(),
        R"({"jsonrpc":"2.0","id":"p2","result":{"tools":[{"name":"a"},{"name":"b"}],"nextCursor":"page-3"}})");
    REQUIRE(filtered);
    CHECK(filtered->tools_removed == 2);
    CHECK(filtered->body ==
          R"({"jsonrpc":"2.0","id":"p2","result":{"tools":[],"nextCursor":"page-3"}})");
}

TEST_CASE("tools without a declared string name are removed") {
    auto filtered = filter_json_response(
        wiki_policy(),
        R"({"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"search"},{"title":"search"},"search",{"name":["search"]},{"name":"Search"},null]}})");
    REQUIRE(filtered);
    CHECK(filtered->tools_removed == 5);
    CHECK(json::parse(filtered->body)["result"]["tools"] == json::parse(R"([{"name":"search"}])"));
}

TEST_CASE("batches of answers are filtered element by element") {
    auto filtered = filter_json_response(
        wiki_policy(),
        R"([{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"x"},{"name":"search"}]}},)"
        R"({"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}},)"
        R"({"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"nope"}}])");
    REQUIRE(filtered);
    CHECK(filtered->tools_removed == 1);
    auto body = json::parse(filtered->body);
    CHECK(body[0]["result"]["tools"] == json::parse(R"([{"name":"search"}])"));
    CHECK(body[1]["result"]["content"][0]["text"] == "hi");
    CHECK(body[2]["error"]["code"] == -32601);
}

TEST_CASE("other messages pass unchanged") {
    for (
        const char* body :
        {R"({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"s","version":"1"}}})",
         R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})",
         R"({"jsonrpc":"2.0","id":5,"result":{"tools":"not an array"}})",
         R"({"jsonrpc":"2.0","id":5,"result":{"content":[],"structuredContent":{"tools":[{"name":"x"}]}}})"}) {
        INFO(body);
        auto filtered = filter_json_response(wiki_policy(), body);
        REQUIRE(filtered);
        CHECK(filtered->body == body);
        CHECK(filtered->tools_removed == 0);
    }
}

TEST_CASE("a known tools/list answer must carry a tools array") {
    const char* odd = R"({"jsonrpc":"2.0","id":5,"result":{"tools":{"name":"delete_everything"}}})";
    CHECK(filter_json_response(wiki_policy(), odd));
    CHECK_FALSE(filter_json_response(wiki_policy(), odd, {"5"}));
    CHECK(filter_json_response(wiki_policy(), odd, {"\"5\""})); // id "5" is not id 5
    CHECK(filter_json_response(
        wiki_policy(), R"({"jsonrpc":"2.0","id":5,"error":{"code":-1,"message":"x"}})", {"5"}));
}

TEST_CASE("unreadable answers are not passed") {
    for (
        const char* body :
        {"", "oops", "42",
         R"({"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"search","name":"delete_everything"}]}})",
         R"({"jsonrpc":"2.0","id":1,"result":{"tools":[]}} trailing)"}) {
        INFO(body);
        CHECK_FALSE(filter_json_response(wiki_policy(), body));
    }
    ServerPolicy small = wiki_policy();
    small.max_message_bytes = 16;
    CHECK_FALSE(filter_json_response(small, kToolsList));
}
