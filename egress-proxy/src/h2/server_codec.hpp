// The server side of an HTTP/2 connection, without sockets: nghttp2's session
// with the proxy's limits, fed the client's bytes, asked for the bytes to send
// back, telling its owner what each stream does (a request begins, its body
// arrives, it ends, the stream closes) and taking each stream's answer.
// net/h2_session.cpp drives it over TLS; the unit tests and the fuzz target
// drive it from memory.
//
// Memory is bounded by windows, not by what a peer sends: a stream's request
// bytes wait for its owner only within the stream's window (64 KiB), all
// streams' within the connection's (1 MiB); a window opens again when the
// owner says it read the bytes (consumed), not when they arrive.
#pragma once

#include "h2/message_mapping.hpp"
#include "h2/nghttp2_support.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace osf::h2 {

struct CodecLimits {
    std::uint32_t max_streams = 100;           // requests in flight at once
    std::size_t max_header_list_bytes = 65536; // decoded, as SETTINGS_MAX_HEADER_LIST_SIZE counts
};

// PING and SETTINGS frames a client may send: this many at once, then this
// many a second (a token bucket); past it, GOAWAY ENHANCE_YOUR_CALM.
inline constexpr double control_burst = 1000;
inline constexpr double control_rate = 100;

class ServerCodec : public Session {
public:
    class Events {
    public:
        // A request's header block is complete. `too_large`: its header list
        // went over the limit (request.head is then empty).
        virtual void started(std::int32_t id, Http1Request request, bool too_large) = 0;
        // Its body (chunk-framed when request.chunked), then its end (after the
        // last chunk, with the trailer fields, when chunked).
        virtual void request_bytes(std::int32_t id, std::string_view bytes) = 0;
        virtual void request_end(std::int32_t id) = 0;
        // Queued answer bytes went out: there is room for more.
        virtual void answer_room(std::int32_t id) = 0;
        // The stream closed while its request path runs: the client reset it,
        // or the answer is whole (nothing more can go on the stream either way).
        virtual void stream_closed(std::int32_t id) = 0;

    protected:
        ~Events() = default;
    };

    ServerCodec(Events& events, CodecLimits limits);
    ~ServerCodec(); // out of line: Stream is complete only there
    ServerCodec(const ServerCodec&) = delete;
    ServerCodec& operator=(const ServerCodec&) = delete;

    // Queues the proxy's SETTINGS. False: nghttp2 could not start.
    bool start();
    // The client's bytes. False: the connection is over (what send() still
    // gives, a GOAWAY, goes out first).
    bool receive(const std::uint8_t* data, std::size_t size);
    // Sends GOAWAY: streams begun finish, no new ones.
    void shutdown();

    // The owner read `n` bytes of the stream's request (framing included).
    void consumed(std::int32_t id, std::size_t n);
    // The owner is done with the stream's request (its request path ended):
    // what it did not read is let go, and the stream no longer counts as in flight.
    void request_done(std::int32_t id);
    // Requests in flight: started and not request_done, reset ones included.
    std::size_t in_flight() const { return in_flight_; }

    // The answer: its head (`end_stream`: there is no body), its body bytes
    // (queued until the client's window takes them), its end with trailer
    // fields; or a reset (a cut answer: INTERNAL_ERROR).
    void answer_head(std::int32_t id, const HeaderList& fields, bool end_stream);
    void answer_data(std::int32_t id, std::string_view bytes);
    void answer_end(std::int32_t id, HeaderList trailers);
    void reset(std::int32_t id, std::uint32_t error_code);
    // Answer bytes queued and not sent yet.
    std::size_t answer_queued(std::int32_t id) const;

    struct Stream; // per stream state, in the .cpp

private:
    friend struct Callbacks;
    Stream* find(std::int32_t id);
    const Stream* find(std::int32_t id) const;
    void forget_if_done(std::int32_t id);
    bool take_control_token();

    Events& events_;
    CodecLimits limits_;
    std::map<std::int32_t, std::unique_ptr<Stream>> streams_;
    std::size_t in_flight_ = 0;
    bool goaway_ = false;
    double control_tokens_ = control_burst;
    std::chrono::steady_clock::time_point refilled_ = std::chrono::steady_clock::now();
};

} // namespace osf::h2
