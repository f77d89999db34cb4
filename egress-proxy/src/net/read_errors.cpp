#include "net/read_errors.hpp"

namespace osf::net {

namespace http = boost::beast::http;

ReadRefusal head_read_refusal(const boost::beast::error_code& ec) {
    const bool too_big = is_over_ceiling(ec);
    return {too_big ? http::status::request_header_fields_too_large : http::status::bad_request,
            too_big ? RefusalReason::limit : RefusalReason::bad_request,
            "malformed request: " + ec.message()};
}

std::optional<ReadRefusal> body_read_refusal(const boost::beast::error_code& ec,
                                             std::size_t read_buffer_bytes) {
    if (is_over_ceiling(ec))
        return ReadRefusal{http::status::payload_too_large, RefusalReason::limit,
                           "a chunk-size line or trailer section over " +
                               std::to_string(read_buffer_bytes) + " bytes"};
    if (is_malformed_message(ec))
        return ReadRefusal{http::status::bad_request, RefusalReason::bad_request,
                           "malformed request body: " + ec.message()};
    return std::nullopt;
}

} // namespace osf::net
