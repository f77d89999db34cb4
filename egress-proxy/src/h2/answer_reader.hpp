// The HTTP/1.1 answer the request path writes for an HTTP/2 stream, read back
// into what HTTP/2 sends: the head as a header list, body bytes as they come,
// and the end with its trailer fields. Beast parses (it wrote them, through
// the proxy's own framing); interim 1xx answers are left out.
#pragma once

#include "h2/message_mapping.hpp"

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace osf::h2 {

class AnswerReader {
public:
    // `head_request`: the answer to a HEAD, whose head says a length no body follows.
    AnswerReader(bool head_request, std::size_t max_header_bytes);

    // What one feed() found: each part once, in this order over the calls.
    struct Pieces {
        std::optional<HeaderList> head; // ":status" first
        std::string body;
        std::optional<HeaderList> end; // the answer is whole: its trailer fields
        bool error = false;            // not an answer Beast reads: the stream is cut
    };
    Pieces feed(std::string_view bytes) {
        Pieces out;
        feed(bytes, out);
        return out;
    }
    // The same, adding to `out` (the pieces of one write, fed one after another).
    void feed(std::string_view bytes, Pieces& out);

    bool whole() const { return whole_; }

private:
    void reset_parser();

    bool head_request_;
    std::size_t max_header_bytes_;
    boost::beast::flat_buffer pending_; // bytes not parsed yet (a head in parts)
    std::optional<boost::beast::http::response_parser<boost::beast::http::buffer_body>> parser_;
    HeaderList head_fields_; // the head's, to tell trailer fields from them
    bool head_done_ = false;
    bool whole_ = false;
};

} // namespace osf::h2
