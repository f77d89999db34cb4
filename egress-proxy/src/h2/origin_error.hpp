// How an exchange with an HTTP/2 origin fails when the origin broke the rules
// or refused a stream: error codes of their own, so the request path logs a
// fault as upstream-protocol (not as a reset), sends a refused request again,
// and its 502 says what happened.
#pragma once

#include <boost/system/error_code.hpp>
#include <type_traits>

namespace osf::h2 {

enum class OriginError {
    broke_protocol = 1, // the proxy reset the stream, or ended the connection, for it
    bad_answer_head,    // a head that is no HTTP answer (h2::to_http1_answer's problem)
    refused_stream,     // not processed (REFUSED_STREAM, or past a GOAWAY): may go again
};

// The origin broke the rules (as opposed to refusing a stream): upstream-protocol.
inline bool is_origin_fault(OriginError e) {
    return e == OriginError::broke_protocol || e == OriginError::bad_answer_head;
}

const boost::system::error_category& origin_error_category();

inline boost::system::error_code make_error_code(OriginError e) {
    return {static_cast<int>(e), origin_error_category()};
}

} // namespace osf::h2

template <> struct boost::system::is_error_code_enum<osf::h2::OriginError> : std::true_type {};
