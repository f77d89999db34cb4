// How an exchange with an HTTP/2 origin fails when the origin broke the rules:
// error codes of their own, so the request path logs them as upstream-protocol
// (not as a reset) and its 502 says what happened.
#pragma once

#include <boost/system/error_code.hpp>
#include <type_traits>

namespace osf::h2 {

enum class OriginError {
    broke_protocol = 1, // the proxy reset the stream, or ended the connection, for it
    bad_answer_head,    // a head that is no HTTP answer (h2::to_http1_answer's problem)
};

const boost::system::error_category& origin_error_category();

inline boost::system::error_code make_error_code(OriginError e) {
    return {static_cast<int>(e), origin_error_category()};
}

} // namespace osf::h2

template <> struct boost::system::is_error_code_enum<osf::h2::OriginError> : std::true_type {};
