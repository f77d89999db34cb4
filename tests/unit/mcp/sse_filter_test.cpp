// SseFilter on event streams as the MCP TypeScript SDK server sends them
// (Streamable HTTP in SSE mode, and the 2024-11-05 HTTP+SSE transport).
#include "mcp/mcp_filter.hpp"
#include "mcp/session_registry.hpp"
#include "wiki_policy.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using nlohmann::json;
using osf::mcp::ServerPolicy;
using osf::mcp::SessionRegistry;
using osf::mcp::SseFilter;

using mcp_test::wiki_policy;

namespace {

const std::string kListAnswer =
    R"({"result":{"tools":[{"name":"search","inputSchema":{"type":"object"}},{"name":"delete_everything","inputSchema":{"type":"object"}},{"name":"fetch_page","inputSchema":{"type":"object"}}],"nextCursor":"c2"},"jsonrpc":"2.0","id":1})";
const std::string kListFiltered =
    R"({"result":{"tools":[{"name":"search","inputSchema":{"type":"object"}},{"name":"fetch_page","inputSchema":{"type":"object"}}],"nextCursor":"c2"},"jsonrpc":"2.0","id":1})";
const std::string kCallAnswer =
    R"({"result":{"content":[{"type":"text","text":"found: kittens"}]},"jsonrpc":"2.0","id":2})";

// A Streamable HTTP answer stream: a priming event, a notification, the answers.
const std::string kStream =
    "id: p0\ndata: \n\n"
    "event: message\ndata: "
    "{\"method\":\"notifications/tools/list_changed\",\"jsonrpc\":\"2.0\"}\n\n"
    "event: message\nid: e1\ndata: " +
    kListAnswer +
    "\n\n"
    ": keep-alive\n\n"
    "event: message\nid: e2\ndata: " +
    kCallAnswer + "\n\n";
const std::string kExpected =
    "id: p0\ndata: \n\n"
    "event: message\ndata: "
    "{\"method\":\"notifications/tools/list_changed\",\"jsonrpc\":\"2.0\"}\n\n"
    "event: message\nid: e1\ndata: " +
    kListFiltered +
    "\n\n"
    ": keep-alive\n"
    "event: message\nid: e2\ndata: " +
    kCallAnswer + "\n\n";

std::string with_line_ending(std::string stream, const std::string& ending) {
    std::string out;
    for (char c : stream) {
        if (c == '\n') {
            out += ending;
        } else {
            out += c;
        }
    }
    return out;
}

} // namespace

TEST_CASE("several events in one chunk: tools/list pruned, the rest unchanged") {
    SseFilter filter(wiki_policy());
    CHECK(filter.feed(kStream) == kExpected);
    CHECK(filter.finish().empty());
    CHECK(filter.tools_removed() == 1);
    CHECK(filter.events_dropped() == 0);
}

TEST_CASE("events split across chunks at every byte offset, any line ending") {
    for (const std::string ending : {"\n", "\r\n", "\r"}) {
        const std::string stream = with_line_ending(kStream, ending);
        for (std::size_t i = 0; i <= stream.size(); ++i) {
            SseFilter filter(wiki_policy());
            std::string out = filter.feed(stream.substr(0, i));
            out += filter.feed(stream.substr(i));
            out += filter.finish();
            INFO("ending " << json(ending).dump() << " split at " << i);
            REQUIRE(out == kExpected);
            REQUIRE(filter.tools_removed() == 1);
            REQUIRE(filter.events_dropped() == 0);
        }
    }
}

TEST_CASE("byte by byte, each event is sent as soon as its blank line arrives") {
    SseFilter filter(wiki_policy());
    const std::string first = "event: message\nid: e1\ndata: " + kListAnswer + "\n\n";
    std::string out;
    for (std::size_t i = 0; i + 1 < first.size(); ++i)
        out += filter.feed(first.substr(i, 1));
    CHECK(out.empty()); // nothing of an unfinished event passes
    out += filter.feed("\n");
    CHECK(out == "event: message\nid: e1\ndata: " + kListFiltered + "\n\n");
}

TEST_CASE("multi-line data is one JSON text") {
    SseFilter filter(wiki_policy());
    std::string pretty = json::parse(kListAnswer).dump(2);
    std::string stream = "event: message\n";
    std::size_t start = 0;
    while (start < pretty.size()) {
        std::size_t end = pretty.find('\n', start);
        stream += "data: " + pretty.substr(start, end - start) + "\n";
        if (end == std::string::npos) break;
        start = end + 1;
    }
    stream += "\n";
    std::string out = filter.feed(stream);
    // The kept bytes are the server's, line breaks included: one data: line each.
    REQUIRE(out.rfind("event: message\ndata: {\ndata:   \"id\": 1,\n", 0) == 0);
    REQUIRE(out.ends_with("\n\n"));
    std::string data;
    std::size_t at = out.find("data: ");
    while (at != std::string::npos) {
        std::size_t end = out.find('\n', at);
        data += out.substr(at + 6, end - at - 6) + "\n";
        at = out.find("data: ", end);
    }
    CHECK(json::parse(data) == json::parse(kListFiltered));
    CHECK(filter.tools_removed() == 1);
}

TEST_CASE("batches in one event are filtered") {
    SseFilter filter(wiki_policy());
    std::string out = filter.feed("data: [" + kListAnswer + "," + kCallAnswer + "]\n\n");
    CHECK(out == "data: [" + kListFiltered + "," + kCallAnswer + "]\n\n");
}

TEST_CASE("events that cannot be read are dropped and counted") {
    SseFilter filter(wiki_policy());
    std::string out = filter.feed("data: not json\n\n"
                                  "event: message\ndata: {\"a\":1,\"a\":2}\n\n"
                                  "data: "
                                  "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":"
                                  "\"search\",\"name\":\"x\"}]}}\n\n"
                                  "data: 42\n\n"
                                  "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"
                                  "event: surprise\ndata: <html>\n\n");
    CHECK(out == "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n");
    CHECK(filter.events_dropped() == 5);
}

TEST_CASE("an event over the size limit is dropped, later ones pass") {
    SseFilter filter(wiki_policy(256));
    std::string big = R"({"jsonrpc":"2.0","id":1,"result":{"tools":[)";
    for (int i = 0; i < 20; ++i)
        big += R"({"name":"search","description":"a long description"},)";
    big += R"({"name":"search"}]}})";
    std::string out = filter.feed("data: " + big + "\n\n");
    out += filter.feed("data: " + kCallAnswer + "\n\n");
    CHECK(out == "data: " + kCallAnswer + "\n\n");
    CHECK(filter.events_dropped() == 1);
}

TEST_CASE("an unfinished event at the end of the stream is dropped") {
    SseFilter filter(wiki_policy());
    CHECK(filter.feed("data: " + kCallAnswer + "\n").empty());
    CHECK(filter.finish().empty());
    CHECK(filter.events_dropped() == 1);
    CHECK(filter.feed("\n").empty()); // nothing after the end
}

TEST_CASE("blocks without data keep their id and retry") {
    SseFilter filter(wiki_policy());
    CHECK(filter.feed("id: 9\nretry: 500\n\nevent: nothing\n\n") == "id: 9\nretry: 500\n\n");
}

TEST_CASE("legacy HTTP+SSE transport: endpoint passes, message answers are pruned") {
    auto registry = std::make_shared<SessionRegistry>();
    {
        SseFilter filter(wiki_policy(), registry);
        const std::string endpoint = "event: endpoint\ndata: /messages?sessionId=5a1b\n\n";
        CHECK(filter.feed(endpoint) == endpoint);
        REQUIRE(filter.session_id() == "5a1b");

        // The proxy saw the client POST tools/list with id 1 in this session.
        registry->expect_tools_list("5a1b", "1");
        CHECK(filter.feed("event: message\ndata: " + kListAnswer + "\n\n") ==
              "event: message\ndata: " + kListFiltered + "\n\n");
        CHECK(filter.tools_removed() == 1);

        // Fail closed: a tools array is pruned even in an answer nobody recorded.
        registry->expect_tools_list("5a1b", "2");
        std::string unrecorded = kListAnswer;
        unrecorded.replace(unrecorded.find("\"id\":1"), 6, "\"id\":77");
        std::string out = filter.feed("event: message\ndata: " + unrecorded + "\n\n");
        CHECK(out.find("delete_everything") == std::string::npos);
        CHECK(filter.tools_removed() == 2);

        // A recorded tools/list answer without a tools array is unreadable.
        CHECK(filter
                  .feed("event: message\ndata: "
                        "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":{\"name\":\"delete_"
                        "everything\"}}}\n\n")
                  .empty());
        CHECK(filter.events_dropped() == 1);
        CHECK(registry->session_count() == 1);
    }
    // The GET stream ended: its session is forgotten.
    CHECK(registry->session_count() == 0);
}

TEST_CASE("Streamable HTTP answers to recorded tools/list ids must hold a tools array") {
    SseFilter filter(wiki_policy());
    filter.expect_tools_list_ids({"1"});
    CHECK(filter.feed("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n").empty());
    CHECK(filter.events_dropped() == 1);
    CHECK(filter.feed("data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n") ==
          "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n");
}

TEST_CASE("a moved filter keeps its state") {
    SseFilter filter(wiki_policy());
    CHECK(filter.feed("data: " + kListAnswer.substr(0, 10)).empty());
    SseFilter moved(std::move(filter));
    CHECK(moved.feed(kListAnswer.substr(10) + "\n\n") == "data: " + kListFiltered + "\n\n");
}

TEST_CASE("an endpoint event is passed only once the proxy has recorded it", "[sse]") {
    auto policy = wiki_policy();
    SseFilter filter(policy);
    std::vector<std::string> seen;
    filter.on_endpoint([&](std::string_view url) {
        seen.emplace_back(url);
        return url.starts_with("/messages");
    });
    auto out = filter.feed("event: endpoint\ndata: /messages?sessionId=1\n\n"
                           "event: endpoint\ndata: https://elsewhere.test/x\n\n"
                           "event: endpoint\ndata: /messages?sessionId=2\n\n");
    CHECK(seen == std::vector<std::string>{"/messages?sessionId=1", "https://elsewhere.test/x",
                                           "/messages?sessionId=2"});
    CHECK(out == "event: endpoint\ndata: /messages?sessionId=1\n\n"
                 "event: endpoint\ndata: /messages?sessionId=2\n\n");
    CHECK(filter.events_dropped() == 1);
}
