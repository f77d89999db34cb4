// What the two codecs share in talking to nghttp2 (a C library).
#pragma once

#include "h2/message_mapping.hpp"

#include <cstddef>
#include <nghttp2/nghttp2.h>
#include <string>
#include <vector>

namespace osf::h2 {

// The fields as nghttp2 takes them: pointers into `fields`, which must live
// until the call that takes them returns (nghttp2 copies them).
std::vector<nghttp2_nv> to_nv(const HeaderList& fields);

// Appends what the session has to send to `out`, until about `max` bytes.
void send_session(nghttp2_session* session, std::string& out, std::size_t max);

// nghttp2 is C: nothing may be thrown through it. A callback that throws
// (out of memory) fails the session instead, which ends the connection.
template <auto F> struct Guarded;
template <class R, class... A, R (*F)(A...)> struct Guarded<F> {
    static R call(A... a) noexcept {
        try {
            return F(a...);
        } catch (...) {
            return static_cast<R>(NGHTTP2_ERR_CALLBACK_FAILURE);
        }
    }
};

} // namespace osf::h2
