// The HTTP/1.1 request forward() writes to an HTTP/2 origin, read back into
// the head, body and end that go out as HEADERS, DATA and trailers: whatever
// the pieces it arrives in.
#include "h2/request_reader.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace request_reader_test {

using osf::h2::HeaderList;
using osf::h2::RequestReader;

// Everything the reader reported over the feeds.
struct Collected {
    std::vector<HeaderList> heads;
    bool head_request = false;
    std::string body;
    std::vector<HeaderList> ends;
    bool error = false;
};

Collected feed_in_pieces(const std::string& wire, std::size_t piece) {
    RequestReader reader(8192);
    Collected c;
    for (std::size_t at = 0; at < wire.size(); at += piece) {
        auto p = reader.feed(std::string_view(wire).substr(at, piece));
        if (p.head) c.heads.push_back(*p.head);
        c.head_request = c.head_request || p.head_request;
        c.body += p.body;
        if (p.end) c.ends.push_back(*p.end);
        c.error = c.error || p.error;
    }
    return c;
}

TEST_CASE("request reader: a GET is its head as HTTP/2 fields and its end, in any pieces") {
    const std::string wire = "GET /v1/items?page=2 HTTP/1.1\r\nHost: api.test:8443\r\n"
                             "Accept: application/json\r\nConnection: keep-alive\r\n\r\n";
    const auto piece = GENERATE(std::size_t{1}, std::size_t{7}, std::size_t{4096});
    const auto c = feed_in_pieces(wire, piece);
    CHECK_FALSE(c.error);
    REQUIRE(c.heads.size() == 1);
    CHECK(c.heads[0] == HeaderList{{":method", "GET"},
                                   {":scheme", "https"},
                                   {":authority", "api.test:8443"},
                                   {":path", "/v1/items?page=2"},
                                   {"accept", "application/json"},
                                   {"te", "trailers"}});
    CHECK_FALSE(c.head_request);
    CHECK(c.body.empty());
    REQUIRE(c.ends.size() == 1);
    CHECK(c.ends[0].empty());
}

TEST_CASE("request reader: a body by its length arrives whole, then the end") {
    const std::string body(40000, 'x');
    const std::string wire =
        "POST /up HTTP/1.1\r\nHost: api.test\r\nContent-Length: 40000\r\n\r\n" + body +
        "GET /after HTTP/1.1\r\n\r\n";
    const auto piece = GENERATE(std::size_t{1000}, std::size_t{100000});
    const auto c = feed_in_pieces(wire, piece);
    CHECK_FALSE(c.error);
    REQUIRE(c.heads.size() == 1);
    CHECK(c.body == body); // nothing after the request is read as its body
    CHECK(c.ends.size() == 1);
}

TEST_CASE("request reader: a chunked body loses its framing, and its trailer fields are the "
          "end's, not the head's") {
    const std::string wire = "POST /grpc.Echo/Chat HTTP/1.1\r\nHost: grpc.test\r\n"
                             "Content-Type: application/grpc\r\nTransfer-Encoding: chunked\r\n\r\n"
                             "5\r\nhello\r\n6\r\n world\r\n0\r\nx-checksum: abc\r\n\r\n";
    const auto piece = GENERATE(std::size_t{1}, std::size_t{3}, std::size_t{4096});
    const auto c = feed_in_pieces(wire, piece);
    CHECK_FALSE(c.error);
    REQUIRE(c.heads.size() == 1);
    for (const auto& f : c.heads[0])
        CHECK((f.name != "transfer-encoding" && f.name != "x-checksum"));
    CHECK(c.body == "hello world");
    REQUIRE(c.ends.size() == 1);
    CHECK(c.ends[0] == HeaderList{{"x-checksum", "abc"}});
}

TEST_CASE("request reader: a HEAD request says so") {
    const auto c = feed_in_pieces("HEAD / HTTP/1.1\r\nHost: a.test\r\n\r\n", 4096);
    CHECK(c.head_request);
    CHECK(c.ends.size() == 1);
}

TEST_CASE("request reader: bytes that are no request are an error, and nothing follows it") {
    RequestReader reader(8192);
    auto p = reader.feed("GET / HTTP/1.1\r\nHost a.test\r\n\r\n");
    CHECK(p.error);
    CHECK_FALSE(p.head);
    p = reader.feed("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n");
    CHECK_FALSE(p.head);
}

TEST_CASE("request reader: a head over the limit is an error") {
    RequestReader reader(1024);
    const auto p = reader.feed(
        "GET / HTTP/1.1\r\nHost: a.test\r\nX-Big: " + std::string(2000, 'b') + "\r\n\r\n");
    CHECK(p.error);
    CHECK_FALSE(p.head);
}

} // namespace request_reader_test
