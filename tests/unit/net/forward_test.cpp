// forward(): one admitted request sent on an upstream connection and its answer
// relayed, driven as a script on in-memory streams. Each test plays the sandbox
// and the upstream server, and checks the bytes each side received, what the
// caller is told (reuse, retry) and the egress log line.
#include "net/forward.hpp"
#include "pipeline_fixture.hpp"

#include <boost/asio/write.hpp>
#include <boost/beast/http.hpp>
#include <catch2/catch.hpp>
#include <string>

namespace http = boost::beast::http;
using namespace net_test;
using osf::net::Exchange;
using osf::net::ForwardResult;

namespace {

// The sandbox's request, forwarded by one exchange on `legs`.
struct Forwarding {
    Runtime runtime;
    osf::net::ConnectionInfo info{7, "10.0.0.2:40000"};
    std::optional<Legs> legs;
    std::optional<Exchange> ex;

    explicit Forwarding(std::size_t max_header_bytes = 64 * 1024) {
        runtime.config.options.limits.max_header_bytes = max_header_bytes;
        runtime.start();
        legs.emplace(runtime.config.limits().read_buffer_bytes());
    }

    void begin(const std::string& method) {
        ex.emplace(*runtime.ctx, info, method);
        ex->rec.host = "example.com";
        ex->rec.port = 443;
        ex->client_keep = true;
    }

    // A bodiless GET, held whole (as handle_request prepares it).
    void get(const std::string& target = "/path") {
        begin("GET");
        http::request<http::string_body> req{http::verb::get, target, 11};
        req.set(http::field::host, "example.com");
        legs->out.buffered.emplace(std::move(req));
    }

    // A request whose head the sandbox sends now; its body is relayed as it comes.
    void streamed(const std::string& head) {
        begin("POST");
        sandbox_sends(head);
        http::request_parser<http::empty_body> parser;
        beast::error_code ec;
        http::read_header(legs->client, legs->client_buffer, parser, ec);
        REQUIRE_FALSE(ec);
        legs->out.streamed.emplace(std::move(parser));
        legs->out.streamed->body_limit(boost::none);
    }

    std::shared_ptr<std::optional<ForwardResult>> start() {
        auto result = spawn(legs->io, osf::net::forward(legs->leg(*ex), nullptr));
        step(legs->io);
        return result;
    }

    void server_sends(const std::string& bytes) {
        asio::write(legs->server, asio::buffer(bytes));
        step(legs->io);
    }
    void sandbox_sends(const std::string& bytes) {
        asio::write(legs->sandbox, asio::buffer(bytes));
        step(legs->io);
    }
    std::string upstream_got() const { return std::string(legs->server.str()); }
    std::string sandbox_got() const { return std::string(legs->sandbox.str()); }

    // The one line this exchange wrote.
    nlohmann::json line() const { // a copy: a missing field reads as null
        const auto lines = runtime.lines();
        REQUIRE(lines.size() == 1);
        return lines[0];
    }
};

const std::string request_sent = "GET /path HTTP/1.1\r\nHost: example.com\r\n\r\n";

} // namespace

TEST_CASE("a GET goes up as prepared; its answer comes back without hop-by-hop fields") {
    Forwarding f;
    f.get();
    auto result = f.start();
    CHECK(f.upstream_got() == request_sent);
    CHECK(f.sandbox_got().empty()); // nothing until the upstream answers
    CHECK(f.runtime.lines().empty());

    f.server_sends("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nKeep-Alive: timeout=5\r\n"
                   "Connection: keep-alive\r\nX-Up: 1\r\n\r\nhello");
    REQUIRE(*result);
    CHECK((*result)->client_keep);
    CHECK((*result)->upstream_reusable);
    CHECK_FALSE((*result)->retry);
    CHECK(f.sandbox_got() == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Up: 1\r\n\r\nhello");
    auto line = f.line();
    CHECK(line["outcome"] == "allowed");
    CHECK(line["status"] == 200);
    CHECK(line["bytesDown"] == 5);
    CHECK(line["host"] == "example.com");
    CHECK_FALSE(line.contains("error"));
}

TEST_CASE("interim 1xx answers are not relayed; the final answer is") {
    Forwarding f;
    f.get();
    auto result = f.start();
    f.server_sends("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                   "HTTP/1.1 204 No Content\r\n\r\n");
    REQUIRE(*result);
    CHECK(f.sandbox_got() == "HTTP/1.1 204 No Content\r\n\r\n");
    CHECK(f.line()["status"] == 204);
}

TEST_CASE("a streamed chunked request body reaches the upstream piece by piece") {
    Forwarding f;
    f.streamed("POST /up HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n");
    auto result = f.start();
    const std::string head =
        "POST /up HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n";
    CHECK(f.upstream_got() == head); // the head goes before any body arrives

    f.sandbox_sends("5;name=value\r\nhello\r\n");
    CHECK(f.upstream_got() == head + "5\r\nhello\r\n");
    f.sandbox_sends("0\r\nX-Trailer: t\r\n\r\n");
    CHECK(f.upstream_got() == head + "5\r\nhello\r\n0\r\n\r\n");

    f.server_sends("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n");
    REQUIRE(*result);
    CHECK(f.sandbox_got() == "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n");
    auto line = f.line();
    CHECK(line["outcome"] == "allowed");
    CHECK(line["bytesUp"] == 5);
}

TEST_CASE("a malformed request body: the sandbox gets a 400, the upstream no complete body") {
    Forwarding f;
    f.streamed("POST /up HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n");
    auto result = f.start();
    f.sandbox_sends("3\r\nabc\r\nnot-hex\r\n");
    REQUIRE(*result);
    CHECK_FALSE((*result)->client_keep);
    CHECK_FALSE((*result)->upstream_reusable);
    CHECK(f.upstream_got().find("0\r\n\r\n") == std::string::npos); // never ended
    CHECK(f.sandbox_got().rfind("HTTP/1.1 400 Bad Request\r\n", 0) == 0);
    CHECK(f.sandbox_got().find("X-Osf-Refused-By: bad-request\r\n") != std::string::npos);
    CHECK(f.sandbox_got().find("Connection: close\r\n") != std::string::npos);
    auto line = f.line();
    CHECK(line["outcome"] == "refused");
    CHECK(line["refusedBy"] == "bad-request");
    CHECK(line["status"] == 400);
}

TEST_CASE("a chunk-size line over the read buffer's ceiling: 413, refused as a limit") {
    Forwarding f(1024); // read buffer: 1 KiB of head + 64 KiB
    f.streamed("POST /up HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n");
    auto result = f.start();
    f.sandbox_sends("3;" + std::string(80 * 1024, 'x'));
    REQUIRE(*result);
    CHECK(f.sandbox_got().rfind("HTTP/1.1 413 Payload Too Large\r\n", 0) == 0);
    CHECK(f.sandbox_got().find("over 66560 bytes") != std::string::npos);
    auto line = f.line();
    CHECK(line["refusedBy"] == "limit");
    CHECK(line["status"] == 413);
}

TEST_CASE("an upstream answer that cannot be read: 502 or 504, and the error kind logged") {
    struct Case {
        const char* name;
        std::string answer; // then the upstream closes
        bool timeout;
        int status;
        const char* error;
    };
    const Case cases[] = {
        {"closed without answering", "", false, 502, "upstream-reset"},
        {"not HTTP", "SSH-2.0-OpenSSH_9.2\r\n\r\n", false, 502, "upstream-protocol"},
        {"a head over the limit",
         "HTTP/1.1 200 OK\r\nX-Big: " + std::string(2048, 'b') + "\r\n\r\n", false, 502,
         "upstream-limit"},
        {"an unknown transfer coding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", false,
         502, "upstream-protocol"},
        {"a 101 nobody asked for",
         "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
         false, 502, "upstream-protocol"},
        {"no answer in time", "", true, 504, "upstream-timeout"},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        Forwarding f(1024);
        f.get();
        if (c.timeout) f.legs->up.fail_next_read(beast::error::timeout);
        auto result = f.start();
        if (!c.timeout) {
            if (!c.answer.empty()) f.server_sends(c.answer);
            f.legs->server.close();
            step(f.legs->io);
        }
        REQUIRE(*result);
        CHECK_FALSE((*result)->client_keep);
        CHECK_FALSE((*result)->upstream_reusable);
        CHECK(f.sandbox_got().rfind("HTTP/1.1 " + std::to_string(c.status), 0) == 0);
        CHECK(f.sandbox_got().find("egress-proxy: " + std::string(c.error)) != std::string::npos);
        // Nothing of the upstream's answer reaches the sandbox.
        CHECK(f.sandbox_got().find("X-Big") == std::string::npos);
        auto line = f.line();
        CHECK(line["outcome"] == "error");
        CHECK(line["error"] == c.error);
        CHECK(line["status"] == c.status);
    }
}

TEST_CASE("a reused connection found closed: retry, with nothing sent to the sandbox or logged") {
    Forwarding f;
    f.get();
    f.legs->conn.reused = true;
    auto result = f.start();
    f.legs->server.close();
    step(f.legs->io);
    REQUIRE(*result);
    CHECK((*result)->retry);
    CHECK(f.sandbox_got().empty());
    CHECK_FALSE(f.ex->finished()); // the caller tries again on a fresh connection
    CHECK(f.runtime.lines().empty());
}

TEST_CASE("a close-delimited answer reaches an HTTP/1.1 sandbox chunked") {
    Forwarding f;
    f.get();
    auto result = f.start();
    f.server_sends("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nabc");
    CHECK_FALSE(*result); // the end is the upstream closing
    f.legs->server.close();
    step(f.legs->io);
    REQUIRE(*result);
    CHECK((*result)->client_keep); // the sandbox can tell where the answer ends
    CHECK_FALSE((*result)->upstream_reusable);
    const auto answer = parse_answer(f.sandbox_got());
    REQUIRE(answer);
    CHECK(answer->chunked());
    CHECK(answer->body() == "abc");
    CHECK(f.line()["bytesDown"] == 3);
}

TEST_CASE("the answer to a HEAD request is its head alone, whatever its fields say") {
    Forwarding f;
    f.get();
    f.legs->out.head = true;
    f.legs->out.buffered->method(http::verb::head);
    auto result = f.start();
    CHECK(f.upstream_got().rfind("HEAD /path HTTP/1.1\r\n", 0) == 0);
    f.server_sends("HTTP/1.1 200 OK\r\nContent-Length: 42\r\n\r\n");
    REQUIRE(*result);
    CHECK(f.sandbox_got() == "HTTP/1.1 200 OK\r\nContent-Length: 42\r\n\r\n");
    CHECK((*result)->upstream_reusable);
    CHECK(f.line()["bytesDown"] == 0);
}

TEST_CASE("a sandbox gone before the answer's end: client-closed, the upstream not reused") {
    Forwarding f;
    f.get();
    auto result = f.start();
    f.server_sends("HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\nhello");
    CHECK_FALSE(*result);
    hang_up(f.legs->sandbox);
    f.server_sends("world"); // not the end yet: the line is not written
    REQUIRE(*result);
    CHECK_FALSE((*result)->client_keep);
    CHECK_FALSE((*result)->upstream_reusable);
    auto line = f.line();
    CHECK(line["outcome"] == "error");
    CHECK(line["error"] == "client-closed");
    CHECK(line["status"] == 200); // the sandbox had the head
}

TEST_CASE("a WebSocket handshake: after the 101, bytes flow both ways untouched") {
    Forwarding f;
    f.begin("GET");
    http::request<http::string_body> req{http::verb::get, "/chat", 11};
    req.set(http::field::host, "example.com");
    req.set(http::field::upgrade, "websocket");
    req.set(http::field::connection, "Upgrade");
    f.legs->out.buffered.emplace(std::move(req));
    f.legs->out.websocket = true;
    auto done = f.start();
    f.server_sends("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                   "Connection: Upgrade\r\nSec-WebSocket-Accept: x\r\n\r\n\x81\x02hi");
    CHECK(f.sandbox_got() == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                             "Sec-WebSocket-Accept: x\r\nConnection: Upgrade\r\n\r\n\x81\x02hi");
    const auto up_before = f.upstream_got().size();
    f.sandbox_sends("\x81\x04ping");
    CHECK(f.upstream_got().substr(up_before) == "\x81\x04ping");
    f.server_sends("\x81\x04pong");
    CHECK(f.sandbox_got().substr(f.sandbox_got().size() - 6) == "\x81\x04pong");
    CHECK_FALSE(*done);
    f.legs->server.close();
    f.legs->sandbox.close();
    step(f.legs->io);
    REQUIRE(*done);
    auto line = f.line();
    CHECK(line["outcome"] == "allowed");
    CHECK(line["status"] == 101);
    CHECK(line["upgrade"] == "websocket");
    CHECK(line["bytesUp"] == 6);
    CHECK(line["bytesDown"] == 10);
}
