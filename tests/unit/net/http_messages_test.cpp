// The header rewriting the proxy applies to every message it relays: what
// reaches the upstream of a request head, and what reaches the sandbox of an
// answer head, checked on the bytes Beast's serializer would write.
#include "net/http_messages.hpp"

#include <boost/beast/http.hpp>
#include <catch2/catch.hpp>
#include <initializer_list>
#include <sstream>
#include <string>
#include <utility>

namespace http = boost::beast::http;
using osf::net::apply_answer_framing;
using osf::net::asks_for_upgrade;
using osf::net::is_websocket_request;
using osf::net::is_websocket_switch;
using osf::net::other_transfer_coding;
using osf::net::refusal_body;
using osf::net::restore_checked_head;
using osf::net::strip_hop_by_hop;

namespace {

// Parses a head written as it arrives on the wire.
http::request<http::empty_body> request(const std::string& head) {
    http::request_parser<http::empty_body> p;
    boost::beast::error_code ec;
    p.put(boost::asio::buffer(head), ec);
    REQUIRE_FALSE(ec);
    REQUIRE(p.is_header_done());
    return p.release();
}

http::response_header<> response(const std::string& head) {
    http::response_parser<http::empty_body> p;
    p.skip(true); // the head only, whatever its framing says
    boost::beast::error_code ec;
    p.put(boost::asio::buffer(head), ec);
    REQUIRE_FALSE(ec);
    return p.release().base();
}

// The field lines as they would go out, without the start line.
std::string fields_text(const http::fields& fields) {
    std::ostringstream out;
    for (const auto& f : fields)
        out << f.name_string() << ": " << f.value() << "\r\n";
    return out.str();
}

} // namespace

TEST_CASE("hop-by-hop fields never reach the other side, end-to-end ones do") {
    auto req = request("GET / HTTP/1.1\r\n"
                       "Host: example.com\r\n"
                       "Connection: keep-alive, X-Private, close\r\n"
                       "Keep-Alive: timeout=5\r\n"
                       "Proxy-Connection: keep-alive\r\n"
                       "Proxy-Authorization: Basic c2VjcmV0\r\n"
                       "TE: trailers\r\n"
                       "Trailer: X-Checksum\r\n"
                       "Upgrade: h2c\r\n"
                       "HTTP2-Settings: AAMAAABkAAQAAP__\r\n"
                       "X-Private: named by Connection\r\n"
                       "Accept: */*\r\n"
                       "\r\n");
    strip_hop_by_hop(req.base(), false);
    CHECK(fields_text(req.base()) == "Host: example.com\r\nAccept: */*\r\n");
}

TEST_CASE("Connection cannot take away framing fields or Host") {
    // Dropping Content-Length here would send the body unframed: the upstream
    // would read it as a request the proxy never checked.
    auto req = request("POST / HTTP/1.1\r\n"
                       "Host: example.com\r\n"
                       "Connection: Content-Length, Transfer-Encoding, Host\r\n"
                       "Content-Length: 3\r\n"
                       "\r\n");
    strip_hop_by_hop(req.base(), false);
    CHECK(fields_text(req.base()) == "Host: example.com\r\nContent-Length: 3\r\n");
}

TEST_CASE("underscore spellings of framing and hop-by-hop fields are dropped") {
    auto req = request("GET / HTTP/1.1\r\n"
                       "Host: example.com\r\n"
                       "Transfer_Encoding: chunked\r\n"
                       "content_length: 9\r\n"
                       "Proxy_Authorization: Basic x\r\n"
                       "X_Custom_Header: kept\r\n"
                       "\r\n");
    strip_hop_by_hop(req.base(), false);
    CHECK(fields_text(req.base()) == "Host: example.com\r\nX_Custom_Header: kept\r\n");
}

TEST_CASE("a WebSocket handshake keeps its Upgrade and gets one Connection: Upgrade") {
    auto req = request("GET /chat HTTP/1.1\r\n"
                       "Host: example.com\r\n"
                       "Connection: keep-alive, Upgrade\r\n"
                       "Upgrade: websocket\r\n"
                       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                       "\r\n");
    REQUIRE(is_websocket_request(req));
    strip_hop_by_hop(req.base(), true);
    CHECK(fields_text(req.base()) == "Host: example.com\r\n"
                                     "Upgrade: websocket\r\n"
                                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                                     "Connection: Upgrade\r\n");
}

TEST_CASE("which requests ask for an upgrade, and which are exactly WebSocket") {
    const std::string start = "GET / HTTP/1.1\r\nHost: a\r\n";
    const auto check = [&](const std::string& fields, bool asks, bool websocket) {
        INFO(fields);
        const auto req = request(start + fields + "\r\n");
        CHECK(asks_for_upgrade(req) == asks);
        CHECK(is_websocket_request(req) == websocket);
    };
    check("", false, false);
    check("Connection: keep-alive\r\n", false, false);
    check("Connection: Upgrade\r\nUpgrade: websocket\r\n", true, true);
    check("Connection: upgrade\r\nUpgrade:  WebSocket \r\n", true, true);
    check("Upgrade: websocket\r\n", true, false); // no Connection token: not a handshake
    check("Connection: foo, UPGRADE\r\n", true, false);
    // The upstream could pick h2c, whose frames the proxy never reads.
    check("Connection: Upgrade\r\nUpgrade: h2c, websocket\r\n", true, false);
    check("Connection: Upgrade\r\nUpgrade: websocket\r\nUpgrade: h2c\r\n", true, false);
    check("Connection: Upgrade\r\nUpgrade: websocket\r\nHTTP2-Settings: AA\r\n", true, false);
    check("Connection: Upgrade\r\nUpgrade: websocket\r\nHTTP2_Settings: AA\r\n", true, false);
    check("HTTP2-Settings: AA\r\n", true, false);
}

TEST_CASE("a 101 is a WebSocket switch only when its one Upgrade is websocket") {
    CHECK(is_websocket_switch(response("HTTP/1.1 101 Switching Protocols\r\n"
                                       "Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n")));
    CHECK_FALSE(is_websocket_switch(response("HTTP/1.1 101 Switching Protocols\r\n"
                                             "Connection: Upgrade\r\nUpgrade: h2c\r\n\r\n")));
    CHECK_FALSE(is_websocket_switch(response("HTTP/1.1 101 Switching Protocols\r\n\r\n")));
}

TEST_CASE("the answer head carries exactly the framing decided") {
    using osf::admission::AnswerBody;
    using osf::admission::AnswerFraming;
    // Built field by field: the parser itself refuses some of these combinations.
    const auto head_with = [](std::initializer_list<std::pair<const char*, const char*>> fields) {
        http::response_header<> head;
        head.result(http::status::ok);
        for (const auto& [name, value] : fields)
            head.insert(name, value);
        return head;
    };
    SECTION("chunked replaces a Content-Length and a doubled Transfer-Encoding") {
        auto head = head_with({{"Content-Length", "5"},
                               {"Transfer-Encoding", "chunked"},
                               {"Transfer-Encoding", "chunked"},
                               {"Server", "s"}});
        apply_answer_framing(head, AnswerFraming{{}, AnswerBody::chunked}, 5);
        CHECK(fields_text(head) == "Server: s\r\nTransfer-Encoding: chunked\r\n");
    }
    SECTION("a length answer gets one Content-Length, as parsed") {
        auto head = head_with({{"Content-Length", "5"}, {"Content-Length", "5"}});
        apply_answer_framing(head, AnswerFraming{{}, AnswerBody::length}, 5);
        CHECK(fields_text(head) == "Content-Length: 5\r\n");
    }
    SECTION("a close-delimited answer (HTTP/1.0 client) carries no framing field") {
        auto head = response("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
        apply_answer_framing(head, AnswerFraming{{}, AnswerBody::close}, std::nullopt);
        CHECK(fields_text(head).empty());
    }
    SECTION("a bodiless answer keeps the length of what a GET would get, if allowed") {
        auto head = response("HTTP/1.1 200 OK\r\nContent-Length: 42\r\n\r\n");
        AnswerFraming framing{{}, AnswerBody::none};
        framing.keep_content_length = true;
        apply_answer_framing(head, framing, 42);
        CHECK(fields_text(head) == "Content-Length: 42\r\n");
        apply_answer_framing(head, AnswerFraming{{}, AnswerBody::none}, 42); // a 204: none
        CHECK(fields_text(head).empty());
    }
}

TEST_CASE("a refusal's body names the host, or the request when there is none") {
    CHECK(refusal_body("example.com", "host not allowed") ==
          "egress-proxy refused example.com: host not allowed\n");
    CHECK(refusal_body("", "bad request") == "egress-proxy refused the request: bad request\n");
}

TEST_CASE("trailer fields read with a chunked body are dropped, and reported") {
    http::request_parser<http::string_body> p;
    boost::beast::error_code ec;
    const std::string head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";
    p.put(boost::asio::buffer(head), ec);
    REQUIRE(p.is_header_done());
    auto checked = p.get().base();
    p.eager(true); // the whole body in one put
    const std::string body = "3\r\nabc\r\n0\r\nX-Injected: yes\r\n\r\n";
    p.put(boost::asio::buffer(body), ec);
    REQUIRE(p.is_done());
    auto message = p.release();
    REQUIRE(message.count("X-Injected") == 1);
    CHECK(restore_checked_head(message, std::move(checked)));
    CHECK(message.count("X-Injected") == 0);
    CHECK(message.body() == "abc");

    http::request<http::string_body> plain{http::verb::get, "/", 11};
    plain.set(http::field::host, "a");
    auto same = plain.base();
    CHECK_FALSE(restore_checked_head(plain, std::move(same)));
}

TEST_CASE("only one Transfer-Encoding field saying chunked is framed again") {
    const auto coded = [](std::initializer_list<const char*> values) {
        http::fields fields;
        for (const char* value : values)
            fields.insert(http::field::transfer_encoding, value);
        return other_transfer_coding(fields);
    };
    CHECK_FALSE(coded({}));
    CHECK_FALSE(coded({"chunked"}));
    CHECK_FALSE(coded({" ChunKed "}));
    CHECK(coded({"chunked, chunked"}));
    CHECK(coded({",,, chunKed,,, chunKed"}));
    CHECK(coded({"gzip, chunked"}));
    CHECK(coded({"chunked", "chunked"}));
    CHECK(coded({"identity"}));
    CHECK(coded({""}));
}
