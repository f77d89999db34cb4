// Refusals on the 2024-11-05 HTTP+SSE transport travel on the GET stream.
#include "mcp/legacy_transport.hpp"
#include "wiki_policy.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using nlohmann::json;
using osf::mcp::inspect_request;
using osf::mcp::legacy_substitute_body;
using osf::mcp::ServerPolicy;
using osf::mcp::SessionRegistry;
using osf::mcp::SseFilter;

using mcp_test::wiki_policy;

namespace {} // namespace

TEST_CASE("a refused call is forwarded as a ping and its answer becomes the refusal") {
    auto registry = std::make_shared<SessionRegistry>();
    SseFilter stream(wiki_policy(), registry);
    CHECK(stream.feed("event: endpoint\ndata: /messages?sessionId=s-1\n\n") ==
          "event: endpoint\ndata: /messages?sessionId=s-1\n\n");

    auto verdict = inspect_request(
        wiki_policy(), "application/json", "",
        R"({"jsonrpc":"2.0","id":"c\u0031","method":"tools/call","params":{"name":"delete_everything","arguments":{"secret":"x"}}})");
    auto forwarded = legacy_substitute_body(verdict, *registry, "s-1");
    REQUIRE(forwarded);
    // The server sees a ping with the client's id, nothing of the call.
    CHECK(*forwarded == R"({"jsonrpc":"2.0","id":"c\u0031","method":"ping"})");

    // The server's answer to the ping arrives on the GET stream.
    std::string out =
        stream.feed("event: message\ndata: {\"result\":{},\"jsonrpc\":\"2.0\",\"id\":\"c1\"}\n\n");
    REQUIRE(out.rfind("event: message\ndata: ", 0) == 0);
    auto answer = json::parse(out.substr(21));
    CHECK(answer["id"] == "c1");
    CHECK(answer["error"]["code"] == -32602);
    CHECK(answer["error"]["message"] == "Unknown tool: delete_everything");

    // Only once: a later answer with the same id passes as it is.
    CHECK(stream.feed("data: {\"result\":{},\"jsonrpc\":\"2.0\",\"id\":\"c1\"}\n\n") ==
          "data: {\"result\":{},\"jsonrpc\":\"2.0\",\"id\":\"c1\"}\n\n");
}

TEST_CASE("batches become batches of pings; other sessions are not affected") {
    auto registry = std::make_shared<SessionRegistry>();
    SseFilter mine(wiki_policy(), registry);
    SseFilter other(wiki_policy(), registry);
    mine.feed("event: endpoint\ndata: /messages?sessionId=A\n\n");
    other.feed("event: endpoint\ndata: /messages?sessionId=B\n\n");

    auto verdict = inspect_request(
        wiki_policy(), "application/json", "",
        R"([{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search"}},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"rm"}}])");
    auto forwarded = legacy_substitute_body(verdict, *registry, "A");
    REQUIRE(forwarded);
    CHECK(
        json::parse(*forwarded) ==
        json::parse(
            R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}])"));

    const std::string pong1 = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n";
    CHECK(other.feed(pong1) == pong1); // session B expects nothing
    auto out = mine.feed(pong1);
    CHECK(json::parse(out.substr(6))["error"]["code"] == -32600);
    out = mine.feed("data: "
                    "[{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}},{\"jsonrpc\":\"2.0\",\"id\":9,"
                    "\"result\":{\"tools\":[{\"name\":\"rm\"}]}}]\n\n");
    auto batch = json::parse(out.substr(6));
    CHECK(batch[0]["error"]["message"] == "Unknown tool: rm");
    CHECK(batch[1]["result"]["tools"].empty()); // still pruned
}

TEST_CASE("verdicts the proxy answers directly are not substituted") {
    SessionRegistry registry;
    auto forward = inspect_request(wiki_policy(), "application/json", "",
                                   R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
    CHECK_FALSE(legacy_substitute_body(forward, registry, "A"));
    auto notification =
        inspect_request(wiki_policy(), "application/json", "",
                        R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"rm"}})");
    CHECK(notification.status == 202);
    CHECK_FALSE(legacy_substitute_body(notification, registry, "A"));
    auto unreadable = inspect_request(wiki_policy(), "text/plain", "", "{}");
    CHECK_FALSE(legacy_substitute_body(unreadable, registry, "A"));
    CHECK_FALSE(registry.has_refusals("A"));
}
