// HTTP/2 messages as the proxy's one request path reads and writes them:
// a stream's decoded request header block becomes an HTTP/1.1 request head
// (so admission, secrets and the MCP filter judge it exactly as they judge
// an HTTP/1.1 request), and an HTTP/1.1 answer head becomes an HTTP/2 header
// list. Pure: no sockets, no nghttp2 types.
#pragma once

#include <boost/beast/http/fields.hpp>
#include <boost/beast/http/message.hpp>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace osf::h2 {

struct HeaderField {
    std::string name; // lower case, as HTTP/2 requires
    std::string value;
    bool operator==(const HeaderField&) const = default;
};
using HeaderList = std::vector<HeaderField>;

// What an HTTP/2 request becomes.
struct Http1Request {
    std::string head;     // "METHOD PATH HTTP/1.1\r\n" fields "\r\n"
    bool chunked = false; // the body follows as chunks (no content-length, more DATA to come)
    // For the log line when the request is refused: what the block named.
    std::string method;
    std::string path;
    // Non-empty: the request cannot be forwarded (answered 400 with this).
    std::string problem;
};

// `fields`: the decoded block, pseudo-header fields first (nghttp2 has checked
// their order, presence and syntax, and refused connection-specific fields).
// `end_stream`: the block ended the stream (no body follows).
Http1Request to_http1_request(const HeaderList& fields, bool end_stream);

// The framing of one piece of a chunked body, and of its end with trailer fields.
void append_chunk(std::string_view data, std::string& out);
void append_last_chunk(const HeaderList& trailers, std::string& out);

// A field that has no meaning in HTTP/2 (RFC 9113 8.2.2): never sent on a stream.
bool is_connection_specific(std::string_view name);

// ":status" and the answer's fields, names in lower case, connection-specific
// fields left out. `from`: the first field to take (the trailer fields Beast
// appended after the head are `from` = the head's field count).
HeaderList to_h2_answer(const boost::beast::http::response_header<>& head);
HeaderList to_h2_fields(const boost::beast::http::fields& fields);

// The trailer fields Beast added to a message's `fields` after its head was
// `head` (to_h2_fields then): those not in the head, by name and value. Not by
// position: Beast inserts a field next to the last one of the same name.
HeaderList added_fields(const boost::beast::http::fields& fields, const HeaderList& head);

// The upstream leg. A request head as forward() writes it, for an HTTP/2
// origin: :method, :scheme https, :authority from Host, :path, the fields in
// lower case without Host and connection-specific ones, and `te: trailers`
// (gRPC servers require it; trailer fields are relayed to HTTP/2 clients).
HeaderList to_h2_request(const boost::beast::http::request_header<>& head);

// An HTTP/2 origin's answer head as forward() reads it: the status line, the
// fields, and the framing of what follows: its content-length, or chunks
// (`chunked` set) when it has none and may have a body.
struct Http1Answer {
    std::string head;
    bool chunked = false;
    bool interim = false; // 1xx: the final answer is still to come
    std::string problem;  // non-empty: not an answer (no valid :status)
};
Http1Answer to_http1_answer(const HeaderList& fields, bool head_request);

} // namespace osf::h2
