#include "mcp/sse_parser.hpp"

#include <catch2/catch.hpp>

using osf::mcp::SseItem;
using osf::mcp::SseParser;

namespace {

// A readable summary of what a parser produced, to compare chunkings.
std::string describe(const std::vector<SseItem>& items) {
    std::string out;
    for (const auto& item : items) {
        switch (item.kind) {
        case SseItem::Kind::Comment:
            out += "comment[" + item.comment + "]\n";
            break;
        case SseItem::Kind::Oversized:
            out += "oversized\n";
            break;
        case SseItem::Kind::Event:
            out += "event type[" + item.event.type + "] data" +
                   (item.event.has_data ? "[" + item.event.data + "]" : "<none>") + " id" +
                   (item.event.id ? "[" + *item.event.id + "]" : "<none>") + " retry" +
                   (item.event.retry ? "[" + *item.event.retry + "]" : "<none>") + "\n";
            break;
        }
    }
    return out;
}

std::string parse_whole(std::string_view stream, std::size_t limit = 1 << 20) {
    SseParser parser(limit);
    return describe(parser.feed(stream));
}

} // namespace

TEST_CASE("fields, multi-line data, comments and blank lines") {
    std::string stream = ": hello\n"
                         "event: message\n"
                         "id: 7\n"
                         "retry: 3000\n"
                         "data: {\"a\":\n"
                         "data:1}\n"
                         "\n"
                         "data\n"
                         "\n"
                         "data:  two spaces\n"
                         "unknown: ignored\n"
                         "retry: 12x\n"
                         "\n"
                         "id\n"
                         "\n"
                         "\n\n";
    CHECK(parse_whole(stream) == "comment[ hello]\n"
                                 "event type[message] data[{\"a\":\n1}] id[7] retry[3000]\n"
                                 "event type[] data[] id<none> retry<none>\n"
                                 "event type[] data[ two spaces] id<none> retry<none>\n"
                                 "event type[] data<none> id[] retry<none>\n");
}

TEST_CASE("a field is its whole name: longer names that start alike are other fields") {
    std::string stream = "datum: no\n"
                         "events: no\n"
                         "ids: no\n"
                         "retry2: 5\n"
                         "Data: no\n"
                         "id:5\n"
                         "event:tick\n"
                         "data:x\n"
                         "\n";
    CHECK(parse_whole(stream) == "event type[tick] data[x] id[5] retry<none>\n");
}

TEST_CASE("lines may end in LF, CRLF or CR") {
    std::string expected = "event type[e] data[x\ny] id<none> retry<none>\n"
                           "event type[] data[z] id<none> retry<none>\n";
    CHECK(parse_whole("event: e\ndata: x\ndata: y\n\ndata: z\n\n") == expected);
    CHECK(parse_whole("event: e\r\ndata: x\r\ndata: y\r\n\r\ndata: z\r\n\r\n") == expected);
    CHECK(parse_whole("event: e\rdata: x\rdata: y\r\rdata: z\r\r") == expected);
    CHECK(parse_whole("event: e\r\ndata: x\rdata: y\n\r\ndata: z\n\r") == expected);
}

TEST_CASE("a leading byte order mark is skipped, only at the start") {
    CHECK(parse_whole("\xEF\xBB\xBF"
                      "data: a\n\n") == "event type[] data[a] id<none> retry<none>\n");
    SseParser parser(1024);
    CHECK(parser.feed("\xEF").empty());
    CHECK(parser.feed("\xBB").empty());
    CHECK(describe(parser.feed("\xBF"
                               "data: a\n\n")) == "event type[] data[a] id<none> retry<none>\n");
    // Later, it is part of a field name ("\uFEFFdata" is not "data").
    CHECK(describe(parser.feed("\xEF\xBB\xBF"
                               "data: b\n\n")) == "event type[] data<none> id<none> retry<none>\n");
}

TEST_CASE("any split into chunks gives the same events") {
    const std::string streams[] = {
        "event: message\r\nid: 1\r\ndata: {\"jsonrpc\":\"2.0\"}\r\n\r\n: ping\r\n\r\ndata: "
        "a\r\ndata: b\r\n\r\n",
        "event: message\rid: 1\rdata: {\"x\":1}\r\r:c\rdata: a\rdata: b\r\r",
        "data: one\n\ndata: two\n\n\n\ndata:\n\nid: 3\nretry: 10\n\n",
        "\xEF\xBB\xBF"
        "data: bom\r\n\r\n",
    };
    for (const auto& stream : streams) {
        const std::string whole = parse_whole(stream);
        for (std::size_t i = 0; i <= stream.size(); ++i) {
            for (std::size_t j = i; j <= stream.size(); ++j) {
                SseParser parser(1 << 20);
                std::vector<SseItem> items;
                for (auto chunk :
                     {stream.substr(0, i), stream.substr(i, j - i), stream.substr(j)}) {
                    auto got = parser.feed(chunk);
                    items.insert(items.end(), got.begin(), got.end());
                }
                INFO("split at " << i << " and " << j);
                REQUIRE(describe(items) == whole);
                CHECK_FALSE(parser.has_partial_event());
            }
        }
    }
}

TEST_CASE("events are produced as soon as they end") {
    SseParser parser(1024);
    CHECK(parser.feed("data: a\n").empty());
    CHECK(parser.has_partial_event());
    CHECK(describe(parser.feed("\ndata: b")) == "event type[] data[a] id<none> retry<none>\n");
    CHECK(parser.has_partial_event());
    // A CR ends the line at once; an LF after it in the next chunk is not a blank line.
    CHECK(parser.feed("\r").empty());
    CHECK(parser.feed("\n").empty());
    CHECK(describe(parser.feed("\r")) == "event type[] data[b] id<none> retry<none>\n");
}

TEST_CASE("an event over the size limit is dropped, the stream goes on") {
    SseParser parser(32);
    std::string stream = "data: small\n\n"
                         "data: " +
                         std::string(100, 'x') +
                         "\ndata: more\n\n"
                         "data: after\n\n";
    CHECK(describe(parser.feed(stream)) == "event type[] data[small] id<none> retry<none>\n"
                                           "oversized\n"
                                           "event type[] data[after] id<none> retry<none>\n");
    // The same when the long line arrives in small pieces (nothing is kept).
    SseParser pieces(32);
    std::string all;
    for (char c : stream)
        all += describe(pieces.feed(std::string_view(&c, 1)));
    CHECK(all == "event type[] data[small] id<none> retry<none>\noversized\n"
                 "event type[] data[after] id<none> retry<none>\n");
    // Many short lines add up too.
    SseParser lines(32);
    std::string many;
    for (int i = 0; i < 20; ++i)
        many += "data: ab\n";
    CHECK(describe(lines.feed(many + "\ndata: ok\n\n")) ==
          "oversized\nevent type[] data[ok] id<none> retry<none>\n");
}
