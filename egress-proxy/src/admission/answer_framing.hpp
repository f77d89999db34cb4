// How an upstream's answer is framed towards the sandbox. The client reads
// the answer by the head the proxy writes, so that head carries exactly one
// framing: the one the proxy relays the body by. An answer whose end the
// client could place elsewhere than the proxy (framing fields the proxy
// ignored, a body on a bodiless status) would let the bytes after it be read
// as the answer to the client's next request on the same connection, which
// may go to any host. Pure: the I/O code gathers the facts and applies the
// result to the head (net/http_messages.hpp apply_answer_framing).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace osf::admission {

// What the answer head says, as read by the HTTP parser.
struct AnswerFramingFacts {
    int status = 200;
    bool head_request = false;                   // the answer to a HEAD request
    std::size_t transfer_encoding_fields = 0;    // how many Transfer-Encoding fields
    std::string_view transfer_encoding;          // the first one's value
    std::optional<std::uint64_t> content_length; // as parsed (one value)
    unsigned client_version = 11;                // 10 or 11
};

enum class AnswerBody {
    none,    // bodiless: the head is the whole answer
    chunked, // the proxy frames the body in chunks
    length,  // Content-Length, as parsed
    close,   // up to the end of the connection (an HTTP/1.0 client: never chunks)
};

struct AnswerFraming {
    std::string refusal; // non-empty: refused (502 upstream-protocol), why
    AnswerBody body = AnswerBody::none;
    // For a bodiless answer, the fields that describe what a GET would get (a
    // HEAD or 304 answer may keep them, RFC 9112 6.1 and 6.3); a 204 keeps none.
    bool keep_content_length = false;
    bool keep_chunked = false;

    bool refused() const { return !refusal.empty(); }
};

// The proxy strips the request's TE field, so an upstream may use no transfer
// coding but chunked (RFC 9112 6.1): any other Transfer-Encoding, or more than
// one field, is refused. A 204, a 304 and the answer to a HEAD request have no
// body whatever their fields say: their head goes out alone, a 204 without
// framing fields (it may have none).
AnswerFraming frame_answer(const AnswerFramingFacts& facts);

} // namespace osf::admission
