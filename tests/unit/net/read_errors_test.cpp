// The read-error mapping every path answers and logs by, as tables: an error
// code in, the class, the log's kind or the sandbox's answer out.
#include "net/read_errors.hpp"

#include <boost/asio/error.hpp>
#include <boost/beast/core/error.hpp>
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using osf::ErrorKind;
using osf::RefusalReason;
using osf::net::ReadRefusal;

TEST_CASE("how a failed read is logged: client and upstream sides") {
    struct Case {
        beast::error_code ec;
        ErrorKind client;
        ErrorKind answer;
        bool malformed;
    };
    const std::vector<Case> cases = {
        {beast::error::timeout, ErrorKind::client_timeout, ErrorKind::upstream_timeout, false},
        {http::error::end_of_stream, ErrorKind::client_closed, ErrorKind::upstream_reset, false},
        {asio::error::connection_reset, ErrorKind::client_closed, ErrorKind::upstream_reset, false},
        // The peer going away mid-message is not a malformed message.
        {http::error::partial_message, ErrorKind::client_closed, ErrorKind::upstream_reset, false},
        {http::error::header_limit, ErrorKind::client_closed, ErrorKind::upstream_limit, true},
        {http::error::buffer_overflow, ErrorKind::client_closed, ErrorKind::upstream_limit, true},
        {http::error::bad_version, ErrorKind::client_closed, ErrorKind::upstream_protocol, true},
        {http::error::bad_chunk, ErrorKind::client_closed, ErrorKind::upstream_protocol, true},
        {osf::h2::OriginError::broke_protocol, ErrorKind::client_closed,
         ErrorKind::upstream_protocol, true},
        // Not processed: the request may go again, nothing was malformed.
        {osf::h2::OriginError::refused_stream, ErrorKind::client_closed, ErrorKind::upstream_reset,
         false},
    };
    for (const auto& c : cases) {
        INFO(c.ec.message());
        CHECK(osf::net::client_error(c.ec) == c.client);
        CHECK(osf::net::answer_read_error(c.ec) == c.answer);
        CHECK(osf::net::is_malformed_message(c.ec) == c.malformed);
    }
}

TEST_CASE("a request head that cannot be read: 431 over the limit, 400 otherwise") {
    struct Case {
        beast::error_code ec;
        ReadRefusal expected;
    };
    const std::vector<Case> cases = {
        {http::error::header_limit,
         {http::status::request_header_fields_too_large, RefusalReason::limit,
          "malformed request: " + beast::error_code(http::error::header_limit).message()}},
        {http::error::buffer_overflow,
         {http::status::request_header_fields_too_large, RefusalReason::limit,
          "malformed request: " + beast::error_code(http::error::buffer_overflow).message()}},
        {http::error::bad_method,
         {http::status::bad_request, RefusalReason::bad_request,
          "malformed request: " + beast::error_code(http::error::bad_method).message()}},
        {http::error::partial_message,
         {http::status::bad_request, RefusalReason::bad_request,
          "malformed request: " + beast::error_code(http::error::partial_message).message()}},
    };
    for (const auto& c : cases) {
        INFO(c.ec.message());
        CHECK(osf::net::head_read_refusal(c.ec) == c.expected);
    }
}

TEST_CASE("a request body that cannot be read: 413 over the read buffer, 400 for broken "
          "framing, no answer when the client went away") {
    struct Case {
        beast::error_code ec;
        std::optional<ReadRefusal> expected;
    };
    const std::vector<Case> cases = {
        {http::error::buffer_overflow,
         ReadRefusal{http::status::payload_too_large, RefusalReason::limit,
                     "a chunk-size line or trailer section over 65536 bytes"}},
        {http::error::bad_chunk,
         ReadRefusal{http::status::bad_request, RefusalReason::bad_request,
                     "malformed request body: " +
                         beast::error_code(http::error::bad_chunk).message()}},
        {http::error::bad_chunk_extension,
         ReadRefusal{http::status::bad_request, RefusalReason::bad_request,
                     "malformed request body: " +
                         beast::error_code(http::error::bad_chunk_extension).message()}},
        {http::error::partial_message, std::nullopt},
        {http::error::end_of_stream, std::nullopt},
        {beast::error::timeout, std::nullopt},
        {asio::error::connection_reset, std::nullopt},
    };
    for (const auto& c : cases) {
        INFO(c.ec.message());
        CHECK(osf::net::body_read_refusal(c.ec, 65536) == c.expected);
    }
}
