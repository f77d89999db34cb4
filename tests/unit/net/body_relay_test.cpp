// relay_body, prefill_body and pump on in-memory streams: the upstream's bytes
// are scripted piece by piece, and what reaches the sandbox is read after each
// step.
#include "net/body_relay.hpp"
#include "pipeline_fixture.hpp"

#include <boost/asio/write.hpp>
#include <boost/beast/http.hpp>
#include <catch2/catch.hpp>
#include <functional>
#include <string>

namespace http = boost::beast::http;
using namespace net_test;
using osf::ErrorKind;
using osf::net::MessageFramer;
using osf::net::RelayBuffer;

namespace {

// An upstream answer relayed to the sandbox: `in` (proxy's upstream end, its
// peer `server`) to `out` (proxy's client end, its peer `sandbox`).
struct Relay {
    asio::io_context io;
    ScriptStream in{io};
    beast::test::stream server{io};
    ScriptStream out{io};
    beast::test::stream sandbox{io};
    beast::flat_buffer buffer{64 * 1024};
    http::response_parser<http::buffer_body> parser;
    RelayBuffer chunk;
    std::uint64_t bytes = 0;
    // Held here: relay_body keeps a reference to it for as long as it runs.
    std::function<void()> before_last_write;

    Relay() {
        in.connect(server);
        out.connect(sandbox);
        parser.body_limit(boost::none);
    }

    void send(const std::string& bytes_from_server) {
        asio::write(server, asio::buffer(bytes_from_server));
    }

    // Reads the answer head the server has sent (all of it must be there).
    void read_head() {
        beast::error_code ec;
        http::read_header(in, buffer, parser, ec);
        REQUIRE_FALSE(ec);
    }

    // Starts relaying the body, the head first (with what arrived of the body).
    std::shared_ptr<std::optional<std::pair<beast::error_code, bool>>>
    start(MessageFramer& framer, std::function<void()> on_last = {}) {
        before_last_write = std::move(on_last);
        beast::error_code ec;
        const bool prefilled = osf::net::prefill_body(in, buffer, parser, chunk, ec);
        REQUIRE_FALSE(ec);
        return spawn(io, osf::net::relay_body(out, in, buffer, parser, framer, chunk, prefilled,
                                              std::chrono::seconds(5), bytes, before_last_write));
    }
};

} // namespace

TEST_CASE("a Content-Length body reaches the sandbox as it arrives; the line is logged "
          "before its last write") {
    Relay r;
    r.send("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello");
    r.read_head();
    MessageFramer framer(r.parser.get());
    int logged = 0;
    std::string seen_when_logged;
    const std::function<void()> log_line = [&] {
        ++logged;
        seen_when_logged = std::string(r.sandbox.str());
    };
    auto result = r.start(framer, log_line);

    step(r.io);
    CHECK(r.sandbox.str() == "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello");
    CHECK_FALSE(*result); // waiting for the rest: nothing is held back meanwhile
    CHECK(logged == 0);

    r.send("world");
    step(r.io);
    REQUIRE(*result);
    CHECK_FALSE((*result)->first);
    CHECK(r.sandbox.str() == "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhelloworld");
    CHECK(r.bytes == 10);
    CHECK(logged == 1);
    // An answer the sandbox has whole is on record: the line came first.
    CHECK(seen_when_logged == "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello");
}

TEST_CASE("a chunked body is re-framed: extensions and trailers stay behind") {
    Relay r;
    r.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    r.read_head();
    MessageFramer framer(r.parser.get());
    auto result = r.start(framer);
    step(r.io);
    // Not prefilled: the head waits for the first piece, to go out with it.
    CHECK(r.sandbox.str().empty());

    r.send("3;ext=smuggled\r\nabc\r\n2\r\nde\r\n0\r\nX-Trailer: t\r\n\r\n");
    step(r.io);
    REQUIRE(*result);
    CHECK_FALSE((*result)->first);
    const std::string got(r.sandbox.str());
    CHECK(got.find("smuggled") == std::string::npos);
    CHECK(got.find("X-Trailer") == std::string::npos);
    CHECK(r.bytes == 5);

    // Whatever the pieces, the sandbox reads one well-framed answer with the body,
    // and nothing after it.
    const auto answer = parse_answer(got);
    REQUIRE(answer);
    CHECK(answer->body() == "abcde");
}

TEST_CASE("prefill_body: body bytes go with the head, a lone chunk-size line does not") {
    SECTION("a piece of body arrived with the head") {
        Relay r;
        r.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n");
        r.read_head();
        beast::error_code ec;
        CHECK(osf::net::prefill_body(r.in, r.buffer, r.parser, r.chunk, ec));
        CHECK_FALSE(ec);
    }
    SECTION("only the next chunk's size line arrived") {
        Relay r;
        r.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n");
        r.read_head();
        beast::error_code ec;
        CHECK_FALSE(osf::net::prefill_body(r.in, r.buffer, r.parser, r.chunk, ec));
        CHECK_FALSE(ec);
    }
    SECTION("a malformed chunk is reported at once") {
        Relay r;
        r.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
        r.read_head();
        beast::error_code ec;
        CHECK_FALSE(osf::net::prefill_body(r.in, r.buffer, r.parser, r.chunk, ec));
        CHECK(osf::net::is_malformed_message(ec));
    }
}

TEST_CASE("a body the upstream cuts short is the reading side's error: a reset") {
    Relay r;
    r.send("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello");
    r.read_head();
    MessageFramer framer(r.parser.get());
    auto result = r.start(framer);
    step(r.io);
    r.server.close();
    step(r.io);
    REQUIRE(*result);
    const auto [ec, reading_side] = **result;
    CHECK(ec == http::error::partial_message);
    CHECK(reading_side);
    CHECK(osf::net::answer_read_error(ec) == ErrorKind::upstream_reset);
    CHECK(r.bytes == 5);
}

TEST_CASE("a malformed chunk mid-body is the reading side's error: a protocol error") {
    Relay r;
    r.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    r.read_head();
    MessageFramer framer(r.parser.get());
    auto result = r.start(framer);
    step(r.io);
    r.send("3\r\nabc\r\nnot-hex\r\n");
    step(r.io);
    REQUIRE(*result);
    CHECK((*result)->second);
    CHECK(osf::net::answer_read_error((*result)->first) == ErrorKind::upstream_protocol);
}

TEST_CASE("a chunk-size line past the read buffer's ceiling is a limit, not a reset") {
    Relay r;
    r.buffer.max_size(32 * 1024);
    r.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    r.read_head();
    MessageFramer framer(r.parser.get());
    auto result = r.start(framer);
    step(r.io);
    r.send("3;" + std::string(40 * 1024, 'x')); // an extension that never ends
    step(r.io);
    REQUIRE(*result);
    CHECK((*result)->first == http::error::buffer_overflow);
    CHECK((*result)->second);
    CHECK(osf::net::answer_read_error((*result)->first) == ErrorKind::upstream_limit);
}

TEST_CASE("a sandbox that went away is the writing side's error") {
    Relay r;
    r.send("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello");
    r.read_head();
    MessageFramer framer(r.parser.get());
    hang_up(r.sandbox);
    auto result = r.start(framer);
    step(r.io);
    REQUIRE(*result);
    CHECK((*result)->first);
    CHECK_FALSE((*result)->second);
}

TEST_CASE("a timed-out read is the reading side's error: a timeout") {
    Relay r;
    r.send("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n");
    r.read_head();
    MessageFramer framer(r.parser.get());
    r.in.fail_next_read(beast::error::timeout); // the idle deadline passes
    auto result = r.start(framer);
    step(r.io);
    REQUIRE(*result);
    CHECK((*result)->second);
    CHECK(osf::net::answer_read_error((*result)->first) == ErrorKind::upstream_timeout);
    CHECK(r.sandbox.str().empty()); // no body byte arrived: nothing went out
}

TEST_CASE("pump moves raw bytes one way until the sender closes, and counts them") {
    Relay r;
    std::uint64_t bytes = 0;
    auto done = spawn(r.io, osf::net::pump(r.in, r.out, std::chrono::seconds(5), bytes));
    r.send("\x81\x05hello");
    step(r.io);
    CHECK(r.sandbox.str() == "\x81\x05hello");
    CHECK_FALSE(*done);
    r.send("more");
    r.server.close();
    step(r.io);
    CHECK(*done);
    CHECK(r.sandbox.str() == "\x81\x05hellomore");
    CHECK(bytes == 11);
}
