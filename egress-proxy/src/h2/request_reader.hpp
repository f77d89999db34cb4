// The HTTP/1.1 request forward() writes to an HTTP/2 origin, read back into
// what HTTP/2 sends: the head as a header list (h2::to_h2_request), body bytes
// as they come, and the end with its trailer fields. Beast parses (the bytes
// are the proxy's own framing of a request it has checked).
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

class RequestReader {
public:
    explicit RequestReader(std::size_t max_header_bytes);

    // What one feed() found: each part once, in this order over the calls.
    struct Pieces {
        std::optional<HeaderList> head;
        bool head_request = false; // the method is HEAD
        std::string body;
        std::optional<HeaderList> end; // the request is whole: its trailer fields
        bool error = false;
    };
    Pieces feed(std::string_view bytes) {
        Pieces out;
        feed(bytes, out);
        return out;
    }
    // The same, adding to `out` (the pieces of one write, fed one after another).
    void feed(std::string_view bytes, Pieces& out);

private:
    boost::beast::flat_buffer pending_;
    boost::beast::http::request_parser<boost::beast::http::buffer_body> parser_;
    HeaderList head_fields_; // the head's, to tell trailer fields from them
    bool head_done_ = false;
    bool whole_ = false;
};

} // namespace osf::h2
