// The bytes of an HTTP/1.1 message as the proxy forwards it: the head as
// Beast's serializer writes it, then the body piece by piece, as it is
// (Content-Length, or up to the end of the connection) or as chunks.
//
// Written by hand instead of with Beast's serializer, which hands a head over
// as a sequence of one buffer per field, wrapped in prefix, suffix and
// concatenation views: walking that sequence cost more per keep-alive request
// than both TLS writes (docs/benchmark.md). Here the head is built in one
// pass into one string, and a piece is at most three buffers. Beast still parses; its serializer is
// the oracle of the unit tests (tests/unit/net/http_framing_test.cpp).
#pragma once

#include <array>
#include <boost/asio/buffer.hpp>
#include <boost/beast/http/fields.hpp>
#include <boost/beast/http/message.hpp>
#include <string>
#include <string_view>

namespace osf::net {

// Appends "<method> <target> HTTP/1.x\r\n", the fields in order, "\r\n".
void append_head(const boost::beast::http::request_header<>& head, std::string& out);
// Appends "HTTP/1.x <code> <reason>\r\n", the fields in order, "\r\n".
void append_head(const boost::beast::http::response_header<>& head, std::string& out);

class MessageFramer {
public:
    // The head of `message` is copied out at once (it may change afterwards).
    // Chunked when the message says so (Beast reads its Transfer-Encoding);
    // `bodiless` (the answer to a HEAD request, a 204, a 304, a 101) sends the
    // head alone whatever its fields say.
    template <bool isRequest, class Body>
    explicit MessageFramer(const boost::beast::http::message<isRequest, Body>& message,
                           bool bodiless = false)
        : chunked_(!bodiless && message.chunked()), bodiless_(bodiless) {
        prefix_.reserve(head_reserve); // most heads fit: no regrowth field by field
        append_head(message.base(), prefix_);
    }

    // The bytes that carry `data` next: the head while it has not gone out,
    // then the piece in its framing; `last` ends the body (with the last chunk
    // when chunked). Empty data that is not the last piece sends only what is
    // pending (the head), never an empty chunk, which would end the body.
    // The buffers stay valid until the next call; after the last piece, or for
    // a bodiless message after the head, calls return nothing.
    std::array<boost::asio::const_buffer, 3> next(std::string_view data, bool last);

    // The last piece has been handed out.
    bool done() const { return done_; }

    // Trailer fields for the last chunk ("name: value\r\n" each), when chunked.
    void trailers(std::string lines) { trailers_ = std::move(lines); }

private:
    static constexpr std::size_t head_reserve = 512;

    std::string prefix_; // the head until it is handed out, then a chunk's size line
    std::string trailers_;
    std::string last_; // the end of the body when it carries trailer fields
    bool chunked_;
    bool bodiless_;
    bool head_sent_ = false;
    bool done_ = false;
};

} // namespace osf::net
