// MessageFramer and append_head against Beast's own serializer, which they
// replace on the forwarding path: the bytes on the wire must be the same for
// heads of every kind and for bodies sent as they are or as chunks.
#include "net/http_framing.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/http.hpp>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace http = boost::beast::http;
using osf::net::MessageFramer;

namespace {

// Everything Beast's serializer writes for `message` with the body pieces
// given one after another (a buffer_body relay, as the proxy used to do it).
template <bool isRequest>
std::string beast_bytes(http::message<isRequest, http::buffer_body> message,
                        const std::vector<std::string>& pieces) {
    http::serializer<isRequest, http::buffer_body> sr{message};
    std::string out;
    auto drain = [&] {
        while (!sr.is_done()) {
            boost::system::error_code ec;
            std::size_t taken = 0;
            sr.next(ec, [&](boost::system::error_code&, const auto& buffers) {
                out += boost::beast::buffers_to_string(buffers);
                taken = boost::asio::buffer_size(buffers);
            });
            if (ec == http::error::need_buffer) return; // wants the next piece
            REQUIRE_FALSE(ec);
            sr.consume(taken);
        }
    };
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        auto& body = message.body();
        body.data = pieces[i].empty() ? nullptr : const_cast<char*>(pieces[i].data());
        body.size = pieces[i].size();
        body.more = i + 1 < pieces.size();
        drain();
        if (sr.is_done()) break;
    }
    return out;
}

template <bool isRequest>
std::string framer_bytes(const http::message<isRequest, http::buffer_body>& message,
                         const std::vector<std::string>& pieces) {
    MessageFramer framer(message);
    std::string out;
    for (std::size_t i = 0; i < pieces.size(); ++i)
        out += boost::beast::buffers_to_string(framer.next(pieces[i], i + 1 == pieces.size()));
    CHECK(framer.done());
    return out;
}

template <bool isRequest>
void same_as_beast(const http::message<isRequest, http::buffer_body>& message,
                   const std::vector<std::string>& pieces) {
    const auto expected = beast_bytes(message, pieces);
    const auto got = framer_bytes(message, pieces);
    CHECK(got == expected);
}

http::request<http::buffer_body> request(http::verb verb, std::string_view target,
                                         unsigned version = 11) {
    http::request<http::buffer_body> r{verb, target, version};
    r.set(http::field::host, "api.example.com");
    r.set(http::field::user_agent, "curl/7.88.1");
    r.set(http::field::accept, "*/*");
    return r;
}

http::response<http::buffer_body> response(unsigned code, unsigned version = 11) {
    http::response<http::buffer_body> r{static_cast<http::status>(code), version};
    r.set(http::field::server, "nginx");
    r.set(http::field::content_type, "text/plain");
    return r;
}

} // namespace

TEST_CASE("request heads are written as Beast writes them") {
    same_as_beast(request(http::verb::get, "/1k"), {""});
    same_as_beast(request(http::verb::get, "/search?q=a%20b&x=1", 10), {""});
    auto unknown = request(http::verb::get, "/");
    unknown.method_string("PURGE"); // a method Beast has no verb for
    same_as_beast(unknown, {""});
    auto odd = request(http::verb::post, "/upload");
    odd.set("X-Empty", "");
    odd.insert("X-Twice", "one");
    odd.insert("X-Twice", "two"); // repeated fields keep their order
    odd.set(http::field::content_length, "5");
    same_as_beast(odd, {"hello"});
}

TEST_CASE("response heads keep the upstream's reason, or get the standard one") {
    auto own = response(200);
    own.reason("Fine Thanks");
    same_as_beast(own, {""});
    same_as_beast(response(404), {""});     // no reason set: "Not Found"
    same_as_beast(response(599), {""});     // a code Beast does not know
    same_as_beast(response(302, 10), {""}); // HTTP/1.0
    auto with_length = response(200);
    with_length.set(http::field::content_length, "3");
    same_as_beast(with_length, {"abc"});
}

TEST_CASE("a body with a length, or up to the connection's end, goes as it is") {
    auto r = response(200);
    r.set(http::field::content_length, "11");
    same_as_beast(r, {"hello", " ", "world"});
    same_as_beast(response(200), {"streamed ", "until ", "close", ""}); // close-delimited
}

TEST_CASE("a chunked body goes as chunks and ends with the last chunk") {
    auto r = response(200);
    r.chunked(true);
    same_as_beast(r, {"abc", "defghijklmnopqrstu", ""});                 // empty last piece
    same_as_beast(r, {"abc", "de"});                                     // last piece with data
    same_as_beast(r, {""});                                              // empty body
    same_as_beast(r, {std::string(70000, 'x'), std::string(0xab, 'y')}); // 5 digits; letters
    auto up = request(http::verb::post, "/upload");
    up.chunked(true);
    same_as_beast(up, {"part one", "part two", ""});
}

TEST_CASE("an empty piece that is not the last sends only the head, never an empty chunk") {
    auto r = response(200);
    r.chunked(true);
    MessageFramer framer(r);
    const auto head = boost::beast::buffers_to_string(framer.next({}, false));
    CHECK(head.starts_with("HTTP/1.1 200 OK\r\n"));
    CHECK(head.ends_with("Transfer-Encoding: chunked\r\n\r\n"));
    CHECK(boost::beast::buffers_to_string(framer.next({}, false)).empty()); // not "0\r\n\r\n"
    CHECK_FALSE(framer.done());
    CHECK(boost::beast::buffers_to_string(framer.next("data", false)) == "4\r\ndata\r\n");
    CHECK(boost::beast::buffers_to_string(framer.next({}, true)) == "0\r\n\r\n");
    CHECK(framer.done());
    CHECK(boost::beast::buffers_to_string(framer.next("late", true)).empty());
}

TEST_CASE("a bodiless answer is its head alone, whatever its fields say") {
    // The answer to a HEAD request keeps the upstream's Transfer-Encoding or
    // Content-Length but carries no body: no last chunk may follow it, or the
    // client would read it as the start of the next answer.
    auto r = response(200);
    r.chunked(true);
    MessageFramer framer(r, true);
    const auto bytes = boost::beast::buffers_to_string(framer.next({}, false));
    CHECK(bytes.ends_with("Transfer-Encoding: chunked\r\n\r\n"));
    CHECK(framer.done());
    CHECK(boost::beast::buffers_to_string(framer.next({}, true)).empty());
}

TEST_CASE("Transfer-Encoding counts as chunked only when chunked is its last coding") {
    auto gzip_last = response(200);
    gzip_last.set(http::field::transfer_encoding, "chunked, gzip");
    MessageFramer as_is(gzip_last);
    as_is.next({}, false);
    CHECK(boost::beast::buffers_to_string(as_is.next("raw", true)) == "raw");
    auto chunked_last = response(200);
    chunked_last.set(http::field::transfer_encoding, "gzip, Chunked");
    MessageFramer chunks(chunked_last);
    chunks.next({}, false);
    CHECK(boost::beast::buffers_to_string(chunks.next("raw", true)) == "3\r\nraw\r\n0\r\n\r\n");
}
