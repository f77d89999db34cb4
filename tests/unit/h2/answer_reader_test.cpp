// The HTTP/1.1 answer the request path writes for an HTTP/2 stream, read back
// into the head, body and end that go out as HEADERS, DATA and trailers:
// whatever the pieces it arrives in.
#include "h2/answer_reader.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace answer_reader_test {

using osf::h2::AnswerReader;
using osf::h2::HeaderList;

// Everything the reader reported over several feeds, and how often.
struct Collected {
    std::vector<HeaderList> heads;
    std::string body;
    std::vector<HeaderList> ends;
    bool error = false;
    std::size_t head_at = 0; // the feed that gave the head (1-based)
    std::size_t end_at = 0;
};

Collected feed_in_pieces(AnswerReader& reader, const std::string& wire, std::size_t piece) {
    Collected c;
    std::size_t feeds = 0;
    for (std::size_t at = 0; at < wire.size(); at += piece) {
        auto p = reader.feed(std::string_view(wire).substr(at, piece));
        ++feeds;
        if (p.head) {
            c.heads.push_back(*p.head);
            c.head_at = feeds;
        }
        c.body += p.body;
        if (p.end) {
            c.ends.push_back(*p.end);
            c.end_at = feeds;
        }
        c.error = c.error || p.error;
    }
    return c;
}

std::string value_of(const HeaderList& fields, std::string_view name) {
    for (const auto& f : fields)
        if (f.name == name) return f.value;
    return "(none)";
}

bool has(const HeaderList& fields, std::string_view name) {
    for (const auto& f : fields)
        if (f.name == name) return true;
    return false;
}

TEST_CASE("answer reader: a head byte by byte is reported once, when whole, then the body") {
    const std::string head =
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nX-Req: 7\r\n\r\n";
    AnswerReader reader(false, 8192);
    const auto c = feed_in_pieces(reader, head + "hello", 1);
    CHECK_FALSE(c.error);
    REQUIRE(c.heads.size() == 1);
    CHECK(c.head_at == head.size()); // not before its last byte
    const HeaderList expected = {{":status", "200"},
                                 {"content-type", "text/plain"},
                                 {"content-length", "5"},
                                 {"x-req", "7"}};
    REQUIRE(c.heads[0].size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        CHECK(c.heads[0][i].name == expected[i].name);
        CHECK(c.heads[0][i].value == expected[i].value);
    }
    CHECK(c.body == "hello");
    REQUIRE(c.ends.size() == 1);
    CHECK(c.ends[0].empty());
    CHECK(c.end_at == head.size() + 5);
    CHECK(reader.whole());
}

TEST_CASE("answer reader: interim 100 and 103 answers are left out, in any pieces") {
    const std::string wire = "HTTP/1.1 100 Continue\r\n\r\n"
                             "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
                             "HTTP/1.1 201 Created\r\nContent-Length: 2\r\nLocation: /n/1\r\n\r\n"
                             "ok";
    for (const std::size_t piece : {wire.size(), std::size_t{1}, std::size_t{7}, std::size_t{30}}) {
        CAPTURE(piece);
        AnswerReader reader(false, 8192);
        const auto c = feed_in_pieces(reader, wire, piece);
        CHECK_FALSE(c.error);
        REQUIRE(c.heads.size() == 1);
        CHECK(c.heads[0].front().name == ":status");
        CHECK(c.heads[0].front().value == "201");
        CHECK(value_of(c.heads[0], "location") == "/n/1");
        CHECK_FALSE(has(c.heads[0], "link"));
        CHECK(c.body == "ok");
        CHECK(c.ends.size() == 1);
        CHECK(reader.whole());
    }
}

TEST_CASE(
    "answer reader: a chunked body decoded, its trailer fields at the end, connection-specific "
    "fields dropped") {
    const std::string wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
                             "Connection: keep-alive\r\nKeep-Alive: timeout=5\r\n"
                             "Trailer: grpc-status\r\nContent-Type: application/grpc\r\n\r\n"
                             "5\r\nhello\r\n6\r\n world\r\n0\r\n"
                             "grpc-status: 0\r\nUpgrade: h2c\r\nGrpc-Message: fine\r\n\r\n";
    for (const std::size_t piece : {wire.size(), std::size_t{1}, std::size_t{11}}) {
        CAPTURE(piece);
        AnswerReader reader(false, 8192);
        const auto c = feed_in_pieces(reader, wire, piece);
        CHECK_FALSE(c.error);
        REQUIRE(c.heads.size() == 1);
        const auto& head = c.heads[0];
        CHECK(value_of(head, ":status") == "200");
        CHECK(value_of(head, "content-type") == "application/grpc");
        CHECK(value_of(head, "trailer") == "grpc-status");
        CHECK_FALSE(has(head, "transfer-encoding"));
        CHECK_FALSE(has(head, "connection"));
        CHECK_FALSE(has(head, "keep-alive"));
        CHECK(c.body == "hello world");
        REQUIRE(c.ends.size() == 1);
        const auto& trailers = c.ends[0];
        REQUIRE(trailers.size() == 2);
        CHECK(trailers[0].name == "grpc-status");
        CHECK(trailers[0].value == "0");
        CHECK(trailers[1].name == "grpc-message");
        CHECK(trailers[1].value == "fine");
        if (piece < wire.size()) CHECK(c.end_at > c.head_at); // the end, not with the head
        CHECK(reader.whole());
    }
}

TEST_CASE("answer reader: trailer fields named as head fields are the trailers, the head's stay "
          "out") {
    // Server-Timing is the usual field sent in both (RFC 9110 6.5.1's example).
    const std::string wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
                             "Server-Timing: db;dur=53\r\nContent-Type: text/html\r\n"
                             "Trailer: Server-Timing\r\n\r\n"
                             "2\r\nok\r\n0\r\nServer-Timing: total;dur=120\r\n\r\n";
    AnswerReader reader(false, 8192);
    const auto c = feed_in_pieces(reader, wire, wire.size());
    CHECK_FALSE(c.error);
    REQUIRE(c.heads.size() == 1);
    CHECK(value_of(c.heads[0], "server-timing") == "db;dur=53");
    CHECK(value_of(c.heads[0], "content-type") == "text/html");
    CHECK(c.body == "ok");
    REQUIRE(c.ends.size() == 1);
    const auto& trailers = c.ends[0];
    CHECK(trailers.size() == 1);
    CHECK(value_of(trailers, "server-timing") == "total;dur=120");
    CHECK_FALSE(has(trailers, "content-type"));
    CHECK_FALSE(has(trailers, "trailer"));
}

TEST_CASE("answer reader: a Content-Length body larger than one parse buffer, across feeds") {
    std::string body(40000, '\0');
    for (std::size_t i = 0; i < body.size(); ++i)
        body[i] = static_cast<char>('A' + i % 23);
    const std::string wire =
        "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    for (const std::size_t piece : {wire.size(), std::size_t{4096}, std::size_t{333}}) {
        CAPTURE(piece);
        AnswerReader reader(false, 8192);
        const auto c = feed_in_pieces(reader, wire, piece);
        CHECK_FALSE(c.error);
        CHECK(c.heads.size() == 1);
        CHECK(c.body == body);
        REQUIRE(c.ends.size() == 1);
        CHECK(c.ends[0].empty());
        CHECK(reader.whole());
    }
    // Before its last byte the answer is not whole.
    AnswerReader reader(false, 8192);
    const auto p = reader.feed(std::string_view(wire).substr(0, wire.size() - 1));
    CHECK(p.head.has_value());
    CHECK(p.body == body.substr(0, body.size() - 1));
    CHECK_FALSE(p.end.has_value());
    CHECK_FALSE(reader.whole());
}

TEST_CASE("answer reader: an answer to HEAD and a 204 are whole with their head") {
    SECTION("HEAD: the Content-Length says what a GET would get, no body follows") {
        AnswerReader reader(true, 8192);
        const auto p = reader.feed("HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n");
        CHECK_FALSE(p.error);
        REQUIRE(p.head.has_value());
        CHECK(value_of(*p.head, "content-length") == "1234");
        CHECK(p.body.empty());
        REQUIRE(p.end.has_value());
        CHECK(p.end->empty());
        CHECK(reader.whole());
    }
    SECTION("the same head to a GET waits for its body") {
        AnswerReader reader(false, 8192);
        const auto p = reader.feed("HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n");
        CHECK(p.head.has_value());
        CHECK_FALSE(p.end.has_value());
        CHECK_FALSE(reader.whole());
    }
    SECTION("204") {
        AnswerReader reader(false, 8192);
        const auto p = reader.feed("HTTP/1.1 204 No Content\r\nDate: Mon, 1 Jan 2024\r\n\r\n");
        CHECK_FALSE(p.error);
        REQUIRE(p.head.has_value());
        CHECK(value_of(*p.head, ":status") == "204");
        CHECK(p.body.empty());
        CHECK(p.end.has_value());
        CHECK(reader.whole());
    }
}

TEST_CASE("answer reader: bytes that are not an answer are an error") {
    for (const std::string& wire :
         {std::string("SSH-2.0-OpenSSH_9.2\r\n"), std::string("HTTP/1.1 2OO OK\r\n\r\n"),
          std::string("HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n"),
          std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")}) {
        CAPTURE(wire);
        AnswerReader reader(false, 8192);
        const auto p = reader.feed(wire);
        CHECK(p.error);
        CHECK_FALSE(p.end.has_value());
        CHECK_FALSE(reader.whole());
    }
    // A head over the limit is refused, not held.
    AnswerReader small(false, 64);
    const auto p = small.feed("HTTP/1.1 200 OK\r\nX-Long: " + std::string(200, 'v') + "\r\n\r\n");
    CHECK(p.error);
    CHECK_FALSE(p.head.has_value());
}

TEST_CASE("answer reader: nothing is accepted after the whole answer") {
    AnswerReader reader(false, 8192);
    const std::string first = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc";
    const std::string second = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nxyz";
    const auto p = reader.feed(first + "trailing garbage" + second);
    CHECK_FALSE(p.error);
    CHECK(p.head.has_value());
    CHECK(p.body == "abc");
    CHECK(p.end.has_value());
    CHECK(reader.whole());
    const auto q = reader.feed(second);
    CHECK_FALSE(q.head.has_value());
    CHECK(q.body.empty());
    CHECK_FALSE(q.end.has_value());
    CHECK_FALSE(q.error);
    CHECK(reader.whole());
}

} // namespace answer_reader_test
