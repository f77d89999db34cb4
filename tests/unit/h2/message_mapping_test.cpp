// An HTTP/2 request's header block as the one request path reads it (an
// HTTP/1.1 head, checked here by Beast's own parser, which the proxy runs on
// it), what is refused before it gets there, and an answer's head back.
#include "h2/message_mapping.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http.hpp>
#include <catch2/catch.hpp>
#include <string>

namespace http = boost::beast::http;
using osf::h2::HeaderList;
using osf::h2::to_http1_request;

namespace {

HeaderList get(std::string path = "/x?y=1") {
    return {{":method", "GET"},
            {":scheme", "https"},
            {":authority", "api.test:8443"},
            {":path", std::move(path)},
            {"user-agent", "t/1"}};
}

// The head as the proxy's request path parses it.
http::request<http::empty_body> parsed(const std::string& head) {
    http::request_parser<http::empty_body> p;
    boost::beast::error_code ec;
    p.put(boost::asio::buffer(head), ec);
    REQUIRE(!ec);
    REQUIRE(p.is_header_done());
    return p.release();
}

} // namespace

TEST_CASE("a GET that ends its stream becomes an HTTP/1.1 head with Host from :authority") {
    const auto r = to_http1_request(get(), true);
    REQUIRE(r.problem.empty());
    CHECK(r.head == "GET /x?y=1 HTTP/1.1\r\nhost: api.test:8443\r\nuser-agent: t/1\r\n\r\n");
    CHECK_FALSE(r.chunked);
    CHECK(r.method == "GET");
    CHECK(r.path == "/x?y=1");
    const auto req = parsed(r.head);
    CHECK(req.target() == "/x?y=1");
    CHECK(req[http::field::host] == "api.test:8443");
    CHECK(req.version() == 11);
}

TEST_CASE("a body without content-length comes as chunks; with one, as it is") {
    auto post = get("/upload");
    post[0].value = "POST";
    auto chunked = to_http1_request(post, false);
    REQUIRE(chunked.problem.empty());
    CHECK(chunked.chunked);
    CHECK(parsed(chunked.head).chunked());

    post.push_back({"content-length", "5"});
    const auto sized = to_http1_request(post, false);
    CHECK_FALSE(sized.chunked);
    const auto req = parsed(sized.head);
    CHECK_FALSE(req.chunked());
    CHECK(req[http::field::content_length] == "5");
    CHECK(req.count(http::field::transfer_encoding) == 0);

    post.pop_back();
    const auto empty = to_http1_request(post, true); // END_STREAM on HEADERS: no body
    CHECK_FALSE(empty.chunked);
    CHECK(parsed(empty.head).count(http::field::transfer_encoding) == 0);
}

TEST_CASE("cookie crumbs are joined; te and connection-specific fields do not cross") {
    auto fields = get();
    fields.push_back({"cookie", "a=1"});
    fields.push_back({"te", "trailers"});
    fields.push_back({"cookie", "b=2"});
    fields.push_back({"connection", "close"}); // nghttp2 refuses these; checked anyway
    fields.push_back({"transfer-encoding", "chunked"});
    fields.push_back({"upgrade", "websocket"});
    const auto r = to_http1_request(fields, true);
    REQUIRE(r.problem.empty());
    const auto req = parsed(r.head);
    CHECK(req[http::field::cookie] == "a=1; b=2");
    CHECK(req.count(http::field::cookie) == 1);
    CHECK(req.count(http::field::te) == 0);
    CHECK(req.count(http::field::connection) == 0);
    CHECK(req.count(http::field::upgrade) == 0);
    CHECK_FALSE(req.chunked());
}

TEST_CASE("one authority: a host field must name the same as :authority") {
    auto same = get();
    same.push_back({"host", "API.test:8443"});
    const auto r = to_http1_request(same, true);
    REQUIRE(r.problem.empty());
    CHECK(parsed(r.head).count(http::field::host) == 1);

    auto other = get();
    other.push_back({"host", "elsewhere.test"});
    CHECK(to_http1_request(other, true).problem == "a host field that differs from :authority");

    auto two = get();
    two.push_back({"host", "api.test:8443"});
    two.push_back({"host", "api.test:8443"});
    CHECK_FALSE(to_http1_request(two, true).problem.empty());

    // Without :authority, the host field names the destination.
    HeaderList host_only = {
        {":method", "GET"}, {":scheme", "https"}, {":path", "/"}, {"host", "api.test"}};
    const auto h = to_http1_request(host_only, true);
    REQUIRE(h.problem.empty());
    CHECK(parsed(h.head)[http::field::host] == "api.test");

    HeaderList neither = {{":method", "GET"}, {":scheme", "https"}, {":path", "/"}};
    CHECK(to_http1_request(neither, true).problem == "neither :authority nor host");
}

TEST_CASE("what an intercepted TLS tunnel does not forward is refused, with what it named") {
    HeaderList connect = {{":method", "CONNECT"}, {":authority", "inner.test:443"}};
    const auto c = to_http1_request(connect, false);
    CHECK(c.problem == "CONNECT inside an intercepted tunnel");
    CHECK(c.method == "CONNECT");

    auto extended = get();
    extended.push_back({":protocol", "websocket"});
    CHECK(to_http1_request(extended, false).problem == "CONNECT inside an intercepted tunnel");

    auto plain = get("/p?secret=1");
    plain[1].value = "http";
    const auto p = to_http1_request(plain, true);
    CHECK_FALSE(p.problem.empty());
    CHECK(p.path == "/p?secret=1"); // the log line cuts the query off itself

    HeaderList nothing;
    CHECK(to_http1_request(nothing, true).problem == "no :method");
    HeaderList no_path = {{":method", "GET"}, {":scheme", "https"}, {":authority", "a.test"}};
    CHECK(to_http1_request(no_path, true).problem == "no :path");
}

TEST_CASE("a chunked body: pieces, then the last chunk with trailer fields") {
    std::string body;
    osf::h2::append_chunk("hello", body);
    osf::h2::append_chunk("", body); // would end the body: nothing is written
    osf::h2::append_chunk(std::string(300, 'x'), body);
    osf::h2::append_last_chunk({{"grpc-status", "0"}, {"connection", "close"}}, body);
    CHECK(body ==
          "5\r\nhello\r\n12c\r\n" + std::string(300, 'x') + "\r\n0\r\ngrpc-status: 0\r\n\r\n");

    // Beast reads it as the proxy's request path does: the body and the trailer.
    const std::string all =
        "POST / HTTP/1.1\r\nhost: a.test\r\ntransfer-encoding: chunked\r\n\r\n" + body;
    http::request_parser<http::string_body> p;
    boost::beast::error_code ec;
    std::size_t at = 0;
    while (!ec && !p.is_done() && at < all.size())
        at += p.put(boost::asio::buffer(all.data() + at, all.size() - at), ec);
    REQUIRE(!ec);
    REQUIRE(p.is_done());
    CHECK(p.get().body() == "hello" + std::string(300, 'x'));
    CHECK(p.get()["grpc-status"] == "0");
    CHECK(p.get().count(http::field::connection) == 0);
}

TEST_CASE("an answer's head: :status first, names in lower case, no connection-specific field") {
    http::response_header<> head;
    head.result(http::status::ok);
    head.version(11);
    head.set("Content-Type", "application/json");
    head.set("Connection", "keep-alive");
    head.set("Keep-Alive", "timeout=5");
    head.set("Transfer-Encoding", "chunked");
    head.set("X-Custom", "v");
    const auto fields = osf::h2::to_h2_answer(head);
    REQUIRE(fields.size() == 3);
    CHECK(fields[0].name == ":status");
    CHECK(fields[0].value == "200");
    CHECK(fields[1].name == "content-type");
    CHECK(fields[1].value == "application/json");
    CHECK(fields[2].name == "x-custom");

    // Trailer fields Beast added after the head: what the head did not have,
    // wherever Beast put it (next to a field of the same name).
    const auto at_head = osf::h2::to_h2_fields(head);
    head.insert("Grpc-Status", "0");
    head.insert("X-Custom", "late");
    const auto trailers = osf::h2::added_fields(head, at_head);
    REQUIRE(trailers.size() == 2);
    CHECK(trailers[0].name == "x-custom");
    CHECK(trailers[0].value == "late");
    CHECK(trailers[1].name == "grpc-status");
}

TEST_CASE("a field that would end a line of the HTTP/1.1 head is refused, on both legs") {
    for (const std::string& bad :
         {std::string("a\r\nx-smuggled: 1"), std::string("a\nb"), std::string("a\0b", 3)}) {
        auto request = get();
        request.push_back({"x-value", bad});
        CHECK(to_http1_request(request, true).problem == "a field with CR, LF or NUL");
        auto named = get();
        named.push_back({"x-" + bad, "v"});
        CHECK_FALSE(to_http1_request(named, true).problem.empty());
        HeaderList answer = {{":status", "200"}, {"x-value", bad}};
        CHECK(osf::h2::to_http1_answer(answer, false).problem == "a field with CR, LF or NUL");
    }
}

TEST_CASE(
    "an HTTP/2 origin's answer as forward() reads it: framing from content-length or chunks") {
    const auto sized =
        osf::h2::to_http1_answer({{":status", "200"}, {"content-length", "5"}}, false);
    REQUIRE(sized.problem.empty());
    CHECK(sized.head == "HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n");
    CHECK_FALSE(sized.chunked);
    const auto streamed =
        osf::h2::to_http1_answer({{":status", "200"}, {"grpc-encoding", "gzip"}}, false);
    CHECK(streamed.chunked);
    CHECK(streamed.head.ends_with("transfer-encoding: chunked\r\n\r\n"));
    // No body can follow: no framing added.
    CHECK_FALSE(osf::h2::to_http1_answer({{":status", "204"}}, false).chunked);
    CHECK_FALSE(osf::h2::to_http1_answer({{":status", "304"}}, false).chunked);
    CHECK_FALSE(osf::h2::to_http1_answer({{":status", "200"}}, true).chunked); // to a HEAD
    CHECK(osf::h2::to_http1_answer({{":status", "103"}}, false).interim);
    CHECK_FALSE(osf::h2::to_http1_answer({{":status", "20"}}, false).problem.empty());
    CHECK_FALSE(osf::h2::to_http1_answer({{":status", "abc"}}, false).problem.empty());
    CHECK_FALSE(osf::h2::to_http1_answer({}, false).problem.empty());
}

TEST_CASE("a request head for an HTTP/2 origin: pseudo-header fields from the head, te: trailers") {
    http::request_header<> head;
    head.method(http::verb::post);
    head.target("/echo.Echo/Say");
    head.version(11);
    head.set(http::field::host, "grpc.test:8443");
    head.set("Content-Type", "application/grpc");
    head.set(http::field::te, "gzip");
    head.set(http::field::connection, "keep-alive");
    const auto fields = osf::h2::to_h2_request(head);
    REQUIRE(fields.size() == 6);
    CHECK(fields[0].name == ":method");
    CHECK(fields[0].value == "POST");
    CHECK(fields[1].value == "https");
    CHECK(fields[2].value == "grpc.test:8443");
    CHECK(fields[3].value == "/echo.Echo/Say");
    CHECK(fields[4].name == "content-type");
    CHECK(fields[5].name == "te");
    CHECK(fields[5].value == "trailers");
}
