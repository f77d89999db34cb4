// An MCP server's answer relayed once its head was read: a JSON body read whole
// and pruned, or an event stream pruned event by event as it arrives. The
// upstream is scripted on an in-memory stream; the test reads what reached the
// sandbox and the log line.
#include "net/mcp_answer_relay.hpp"
#include "pipeline_fixture.hpp"

#include <boost/asio/write.hpp>
#include <boost/beast/http.hpp>
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

namespace http = boost::beast::http;
using namespace net_test;
using osf::net::Exchange;
using osf::net::ForwardResult;

namespace {

const std::string tools_list_answer =
    R"({"jsonrpc":"2.0","id":1,"result":{"tools":[)"
    R"({"name":"search","inputSchema":{"type":"object"}},)"
    R"({"name":"delete_everything","inputSchema":{"type":"object"}}]}})";

// One chunk of a chunked body as an upstream writes it.
std::string chunk(const std::string& data) {
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", data.size());
    return size + data + "\r\n";
}

struct McpRelay {
    Runtime runtime;
    osf::net::ConnectionInfo info{9, "10.0.0.2:40001"};
    std::optional<Legs> legs;
    std::optional<Exchange> ex;
    osf::mcp::ServerPolicy server;
    http::response_parser<http::buffer_body> rp;

    McpRelay() {
        runtime.start();
        legs.emplace(runtime.config.limits().read_buffer_bytes());
        ex.emplace(*runtime.ctx, info, "POST");
        ex->rec.host = "mcp.example.com";
        ex->client_keep = true;
        server.name = "wiki";
        server.tools = {"search"};
        rp.body_limit(boost::none);
        // forward() reads the request's answer on this connection: a request was sent.
        legs->out.buffered.emplace(http::verb::post, "/mcp", 11);
    }

    // The upstream's answer head (and what arrives with it), read as forward() does.
    void head(const std::string& bytes) {
        server_sends(bytes);
        beast::error_code ec;
        http::read_header(legs->up, legs->conn.buffer, rp, ec);
        REQUIRE_FALSE(ec);
        ex->rec.status = rp.get().result_int();
    }

    void server_sends(const std::string& bytes) {
        asio::write(legs->server, asio::buffer(bytes));
        step(legs->io);
    }
    std::string sandbox_got() const { return std::string(legs->sandbox.str()); }
    nlohmann::json line() const { // a copy: a missing field reads as null
        const auto lines = runtime.lines();
        REQUIRE(lines.size() == 1);
        return lines[0];
    }
};

} // namespace

TEST_CASE("an MCP JSON answer reaches the sandbox pruned, with its own Content-Length") {
    McpRelay m;
    // Chunked upstream, trailer included: the sandbox gets neither.
    m.head("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
           "Transfer-Encoding: chunked\r\n\r\n");
    auto result = spawn(
        m.legs->io, osf::net::relay_mcp_json(m.legs->leg(*m.ex), std::move(m.rp), m.server, true));
    step(m.legs->io);
    m.server_sends(chunk(tools_list_answer.substr(0, 40)));
    CHECK(m.sandbox_got().empty()); // nothing unfiltered: the body is read whole first
    m.server_sends(chunk(tools_list_answer.substr(40)) + "0\r\nX-Trailer: t\r\n\r\n");
    REQUIRE(*result);
    CHECK((*result)->client_keep);
    CHECK((*result)->upstream_reusable);

    const auto answer = parse_answer(m.sandbox_got());
    REQUIRE(answer);
    CHECK_FALSE(answer->chunked());
    CHECK((*answer)[http::field::content_length] == std::to_string(answer->body().size()));
    CHECK(answer->count("X-Trailer") == 0);
    const auto body = nlohmann::json::parse(answer->body());
    REQUIRE(body["result"]["tools"].size() == 1);
    CHECK(body["result"]["tools"][0]["name"] == "search");

    auto line = m.line();
    CHECK(line["outcome"] == "allowed");
    CHECK(line["toolsRemoved"] == 1);
    CHECK(line["bytesDown"] == answer->body().size());
}

TEST_CASE("an MCP JSON answer over the message limit: 502, refused, nothing of it relayed") {
    McpRelay m;
    m.server.max_message_bytes = 64;
    // Chunked: a Content-Length over the limit is refused from the head already
    // (mcp::decide_answer), before this relay is reached.
    m.head("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
           "Transfer-Encoding: chunked\r\n\r\n");
    auto result = spawn(
        m.legs->io, osf::net::relay_mcp_json(m.legs->leg(*m.ex), std::move(m.rp), m.server, true));
    m.server_sends(chunk(tools_list_answer.substr(0, 40)));
    CHECK_FALSE(*result); // under the limit so far
    m.server_sends(chunk(tools_list_answer.substr(40)));
    REQUIRE(*result);
    CHECK_FALSE((*result)->client_keep);
    CHECK_FALSE((*result)->upstream_reusable);
    CHECK(m.sandbox_got().rfind("HTTP/1.1 502 Bad Gateway\r\n", 0) == 0);
    CHECK(m.sandbox_got().find("delete_everything") == std::string::npos);
    CHECK(m.sandbox_got().find("over the size limit") != std::string::npos);
    auto line = m.line();
    CHECK(line["outcome"] == "refused");
    CHECK(line["refusedBy"] == "mcp-unreadable");
    CHECK(line["status"] == 502);
}

TEST_CASE("an MCP JSON answer that is not JSON-RPC: 502, refused as unreadable") {
    McpRelay m;
    const std::string body = "<html>not json</html>";
    m.head("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body);
    auto result = spawn(
        m.legs->io, osf::net::relay_mcp_json(m.legs->leg(*m.ex), std::move(m.rp), m.server, true));
    step(m.legs->io);
    REQUIRE(*result);
    CHECK_FALSE((*result)->client_keep);
    CHECK((*result)->upstream_reusable); // the answer was read whole: the connection is clean
    CHECK(m.sandbox_got().rfind("HTTP/1.1 502 Bad Gateway\r\n", 0) == 0);
    CHECK(m.sandbox_got().find("not readable JSON-RPC") != std::string::npos);
    CHECK(m.sandbox_got().find("<html>") == std::string::npos);
    CHECK(m.line()["refusedBy"] == "mcp-unreadable");
}

TEST_CASE("an MCP event stream: the head at once, then whole events only, pruned") {
    McpRelay m;
    m.head("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
           "Transfer-Encoding: chunked\r\n\r\n");
    auto result = spawn(m.legs->io,
                        osf::net::relay_mcp_event_stream(m.legs->leg(*m.ex), m.rp, m.server, true));
    step(m.legs->io);
    // A stream's client waits for the head before any event.
    const std::string head_sent = m.sandbox_got();
    CHECK(head_sent.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
    CHECK(head_sent.find("Transfer-Encoding: chunked\r\n") != std::string::npos);
    CHECK(head_sent.substr(head_sent.size() - 4) == "\r\n\r\n");

    const std::string event = "event: message\ndata: " + tools_list_answer + "\n\n";
    m.server_sends(chunk(event.substr(0, 30)));
    CHECK(m.sandbox_got() == head_sent); // half an event: held back
    m.server_sends(chunk(event.substr(30)));
    const std::string after_event = m.sandbox_got();
    CHECK(after_event.size() > head_sent.size());
    CHECK(after_event.find("\"search\"") != std::string::npos);
    CHECK(after_event.find("delete_everything") == std::string::npos);
    CHECK_FALSE(*result);

    m.server_sends(chunk("event: message\ndata: {not json\n\n")); // unreadable: dropped
    CHECK(m.sandbox_got() == after_event);
    m.server_sends("0\r\n\r\n");
    REQUIRE(*result);
    CHECK((*result)->client_keep);
    CHECK((*result)->upstream_reusable);

    const auto answer = parse_answer(m.sandbox_got());
    REQUIRE(answer); // the stream ends with its last chunk
    CHECK(answer->body().find("delete_everything") == std::string::npos);
    auto line = m.line();
    CHECK(line["outcome"] == "allowed");
    CHECK(line["toolsRemoved"] == 1);
    CHECK(line["mcpEventsDropped"] == 1);
    CHECK(line["bytesDown"] == answer->body().size());
}

TEST_CASE("an MCP event stream the upstream cuts off: an error line, the stream left unended") {
    McpRelay m;
    m.head("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
           "Transfer-Encoding: chunked\r\n\r\n");
    auto result = spawn(m.legs->io,
                        osf::net::relay_mcp_event_stream(m.legs->leg(*m.ex), m.rp, m.server, true));
    step(m.legs->io);
    m.server_sends(chunk("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\n"));
    m.legs->server.close();
    step(m.legs->io);
    REQUIRE(*result);
    CHECK_FALSE((*result)->client_keep);
    CHECK_FALSE((*result)->upstream_reusable);
    // No last chunk: the sandbox cannot take the cut stream for a whole one.
    CHECK_FALSE(parse_answer(m.sandbox_got()));
    auto line = m.line();
    CHECK(line["outcome"] == "error");
    CHECK(line["error"] == "upstream-reset");
    CHECK(line["status"] == 200);
}
