// Fuzz target: a chunked body (a request's or an answer's) read the way the
// proxy relays one: Beast's parser with a buffer_body, fed from a connection
// read buffer with the proxy's ceiling (Limits::read_buffer_bytes), in pieces.
// The body is the input's piece repeated (the count comes from its first two
// bytes), so chunk-size lines with endless extensions and trailer sections
// longer than the ceiling are reached from a small corpus.
//
// Invariants: nothing throws; the read buffer never holds more than its
// ceiling; a body whose framing does not fit ends the read with
// buffer_overflow (the proxy's "limit" refusal or "upstream-limit" error)
// instead of growing it.
#include "config/proxy_config.hpp"
#include "fuzz_check.hpp"

#include <algorithm>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <string>

namespace {

namespace http = boost::beast::http;

template <bool isRequest> void read_body(std::string_view wire, std::size_t piece) {
    const osf::config::Limits limits;
    boost::beast::flat_buffer buffer{limits.read_buffer_bytes()};
    http::parser<isRequest, http::buffer_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(limits.max_header_bytes));
    parser.body_limit(boost::none);
    char chunk[4096];
    std::size_t offset = 0;
    bool overflow = false;
    while (!parser.is_done()) {
        parser.get().body().data = chunk;
        parser.get().body().size = sizeof chunk;
        // A read: what fits under the ceiling (as Beast's read_size does), then parse.
        const auto room = buffer.max_size() - buffer.size();
        if (room == 0) {
            overflow = true; // Beast's read reports http::error::buffer_overflow here
            break;
        }
        const auto take = std::min({piece, room, wire.size() - offset});
        if (take == 0) break; // the peer sent no more
        auto space = buffer.prepare(take);
        std::copy_n(wire.data() + offset, take, static_cast<char*>(space.data()));
        buffer.commit(take);
        offset += take;
        OSF_FUZZ_CHECK(buffer.size() <= buffer.max_size());
        for (;;) {
            boost::beast::error_code ec;
            const auto used = parser.put(buffer.data(), ec);
            buffer.consume(used);
            if (ec == http::error::need_buffer) {
                parser.get().body().data = chunk;
                parser.get().body().size = sizeof chunk;
                continue;
            }
            if (ec == http::error::need_more) break;
            if (ec) return; // malformed: refused or an error, bounded
            if (parser.is_done() || used == 0) break;
        }
    }
    if (overflow) OSF_FUZZ_CHECK(buffer.size() == buffer.max_size());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 3) return 0;
    const bool request = data[0] & 1;
    const std::size_t repeats = 1 + (static_cast<std::size_t>(data[1]) << 8 | data[2]) % 4096;
    const auto piece_text = osf::fuzz::as_text(data + 3, size - 3);
    std::string wire = request
                           ? "POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                           : "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (std::size_t i = 0; i < repeats && wire.size() < 512 * 1024; ++i)
        wire.append(piece_text);
    const std::size_t read_piece = 1 + data[0] * 67u; // 1 to 17,086 bytes per read
    if (request)
        read_body<true>(wire, read_piece);
    else
        read_body<false>(wire, read_piece);
    return 0;
}
