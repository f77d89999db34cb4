// The filter on answers recorded from the official MCP TypeScript SDK server
// (recorded/README.md).
#include "mcp/mcp_filter.hpp"
#include "mcp/session_registry.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using nlohmann::json;
using osf::mcp::ServerPolicy;
using osf::mcp::SseFilter;

namespace {

std::string recorded(const std::string& name) {
    std::ifstream in(std::string(OSF_SOURCE_DIR) + "/tests/unit/mcp/recorded/" + name,
                     std::ios::binary);
    REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

ServerPolicy declared() {
    ServerPolicy policy;
    policy.name = "wiki";
    policy.tools = {"search", "fetch_page"};
    return policy;
}

std::vector<std::string> tool_names(const json& answer) {
    std::vector<std::string> names;
    for (const auto& tool : answer["result"]["tools"])
        names.push_back(tool["name"]);
    return names;
}

// The data of every event in a (filtered) stream.
std::vector<std::string> event_data(const std::string& stream) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while ((at = stream.find("data: ", at)) != std::string::npos) {
        std::size_t end = stream.find('\n', at);
        out.push_back(stream.substr(at + 6, end - at - 6));
        at = end;
    }
    return out;
}

} // namespace

TEST_CASE("recorded Streamable HTTP JSON answer") {
    const auto body = recorded("sdk-streamable-json-tools-list.json");
    REQUIRE(body.find("delete_everything") != std::string::npos);
    auto filtered = osf::mcp::filter_json_response(declared(), body, {"1"});
    REQUIRE(filtered);
    CHECK(filtered->tools_removed == 1);
    CHECK(tool_names(json::parse(filtered->body)) ==
          std::vector<std::string>{"search", "fetch_page"});
}

TEST_CASE("recorded Streamable HTTP SSE answer, in chunks of every size") {
    const auto stream = recorded("sdk-streamable-sse-tools-list.txt");
    for (std::size_t size = 1; size <= stream.size(); size = size < 64 ? size + 1 : size * 2) {
        SseFilter filter(declared());
        std::string out;
        for (std::size_t at = 0; at < stream.size(); at += size)
            out += filter.feed(stream.substr(at, size));
        out += filter.finish();
        INFO("chunk size " << size);
        REQUIRE(filter.events_dropped() == 0);
        REQUIRE(out.rfind("event: message\ndata: ", 0) == 0);
        auto data = event_data(out);
        REQUIRE(data.size() == 1);
        CHECK(tool_names(json::parse(data[0])) == std::vector<std::string>{"search", "fetch_page"});
    }
}

TEST_CASE("recorded legacy HTTP+SSE GET stream") {
    const auto stream = recorded("sdk-legacy-get-stream.txt");
    auto registry = std::make_shared<osf::mcp::SessionRegistry>();
    SseFilter filter(declared(), registry);
    // The endpoint event comes first; the proxy then sees the POSTs.
    std::size_t first_event_end = stream.find("\n\n") + 2;
    std::string out = filter.feed(stream.substr(0, first_event_end));
    REQUIRE(filter.session_id());
    CHECK(out == stream.substr(0, first_event_end));
    registry->expect_tools_list(*filter.session_id(), "1");
    out += filter.feed(stream.substr(first_event_end));
    CHECK(filter.events_dropped() == 0);
    CHECK(filter.tools_removed() == 1);
    auto data = event_data(out);
    REQUIRE(data.size() == 4); // endpoint, initialize, tools/list, tools/call answers
    CHECK(data[0].rfind("/messages?sessionId=", 0) == 0);
    CHECK(json::parse(data[1])["result"]["serverInfo"]["name"] == "osf-test-mcp-server");
    CHECK(tool_names(json::parse(data[2])) == std::vector<std::string>{"search", "fetch_page"});
    CHECK(json::parse(data[3])["result"]["content"][0]["text"] ==
          R"(search ran with {"text":"x"})");
    CHECK_FALSE(registry->take_tools_list(*filter.session_id(), "1")); // matched once
}
