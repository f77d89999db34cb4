// What both legs' HTTP/2 connections do with their TLS stream: the codec's
// output written out, gathered into writes of up to 64 KiB, until the
// connection is over; reads of 16 KiB at a time.
#pragma once

#include "net/tls_stream.hpp"
#include "net/use_tuple.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <cstddef>
#include <string>

namespace osf::net {

inline constexpr std::size_t h2_read_bytes = 16 * 1024;
inline constexpr std::size_t h2_write_gather_bytes = 64 * 1024;

// Writes what `codec` gives (ServerCodec or ClientCodec) whenever `wake` is
// cancelled, until a write fails, `reading_done` is set and nothing is left,
// or the codec wants neither to read nor to write. Each write has `idle`.
template <class Codec>
boost::asio::awaitable<void> write_h2_output(TlsStream& tls, Codec& codec,
                                             boost::asio::steady_timer& wake,
                                             const bool& reading_done, std::chrono::seconds idle) {
    std::string out;
    for (;;) {
        out.clear();
        codec.send(out, h2_write_gather_bytes);
        if (!out.empty()) {
            tls.expires_after(idle);
            auto [ec, n] =
                co_await boost::asio::async_write(tls, boost::asio::buffer(out), use_tuple);
            if (ec) co_return;
            continue;
        }
        if (reading_done || (!codec.want_read() && !codec.want_write())) co_return;
        wake.expires_at(std::chrono::steady_clock::time_point::max());
        co_await wake.async_wait(use_tuple);
    }
}

} // namespace osf::net
