// How a failed read is classed and answered, on every path (HTTP/1.1 and
// HTTP/2, a body streamed or read whole, MCP, secrets, AWS): one mapping per
// question, so that no path words or logs a failure differently. Pure.
#pragma once

#include "h2/origin_error.hpp"
#include "osf/log_fields.hpp"

#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/status.hpp>
#include <cstddef>
#include <optional>
#include <string>

namespace osf::net {

// How a client ended an exchange early: it went away, or sent nothing in time.
inline ErrorKind client_error(const boost::beast::error_code& ec) {
    return ec == boost::beast::error::timeout ? ErrorKind::client_timeout
                                              : ErrorKind::client_closed;
}

// A parse error of the message itself, as opposed to the peer going away (an
// HTTP/2 origin's broken rules count as one).
inline bool is_malformed_message(const boost::beast::error_code& ec) {
    namespace http = boost::beast::http;
    if (ec.category() == h2::origin_error_category())
        return h2::is_origin_fault(static_cast<h2::OriginError>(ec.value()));
    return ec.category() == http::make_error_code(http::error::bad_chunk).category() &&
           ec != http::error::end_of_stream && ec != http::error::partial_message &&
           ec != http::error::need_more && ec != http::error::need_buffer;
}

// A read that met a ceiling: the connection's read buffer (a chunk-size line or
// trailer section that does not fit, Limits::read_buffer_bytes) or a head limit.
inline bool is_over_ceiling(const boost::beast::error_code& ec) {
    namespace http = boost::beast::http;
    return ec == http::error::buffer_overflow || ec == http::error::header_limit;
}

// How a failed read of the upstream's answer (head or body) is logged.
inline ErrorKind answer_read_error(const boost::beast::error_code& ec) {
    if (ec == boost::beast::error::timeout) return ErrorKind::upstream_timeout;
    if (is_over_ceiling(ec)) return ErrorKind::upstream_limit;
    if (is_malformed_message(ec)) return ErrorKind::upstream_protocol;
    return ErrorKind::upstream_reset;
}

// What the sandbox is answered (and the log says) when its request cannot be read.
struct ReadRefusal {
    boost::beast::http::status status;
    RefusalReason reason;
    std::string detail; // the answer's words: the error's name, never the bytes read

    bool operator==(const ReadRefusal&) const = default;
};

// A request head that could not be read, the client having sent something
// (a quiet close is not answered): over the head limit, or malformed.
ReadRefusal head_read_refusal(const boost::beast::error_code& ec);

// A request body that could not be read (past a body limit, which each path
// words itself): a refusal for a chunk-size line or trailer section over
// `read_buffer_bytes` or broken framing; nullopt when the client went away or
// went quiet (logged as client_error(ec), not answered).
std::optional<ReadRefusal> body_read_refusal(const boost::beast::error_code& ec,
                                             std::size_t read_buffer_bytes);

} // namespace osf::net
