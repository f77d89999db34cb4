// The client side of an HTTP/2 connection to an origin, without sockets:
// nghttp2's client session, fed the origin's bytes, asked for the bytes to
// send, taking requests (head, body, end) and telling its owner what each
// answer does (head, body, end with trailer fields, the stream closed).
// net/h2_upstream.cpp drives it over TLS.
//
// Memory is bounded by windows as on the client leg: an answer's bytes wait
// for the owner only within the stream's window (64 KiB), all streams'
// within the connection's (1 MiB), opened again as the owner reads them.
#pragma once

#include "h2/message_mapping.hpp"
#include "h2/nghttp2_support.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace osf::h2 {

// How a stream ended without a whole answer, as the owner tells it apart.
enum class StreamEnd {
    closed,         // with no error (after a whole answer, or ended by the origin with NO_ERROR)
    refused,        // the origin did not process it (REFUSED_STREAM, or past its GOAWAY's last
                    // stream): safe to send again (RFC 9113, 8.7)
    reset,          // the origin reset it otherwise, or the connection went away
    head_too_large, // the answer's header list went over the limit: the proxy reset it
    origin_fault,   // the origin broke HTTP/2's rules on it: the proxy reset it
};

class ClientCodec : public Session {
public:
    class Events {
    public:
        // The final answer's head (":status" first; interim 1xx answers are not passed on).
        virtual void answer_head(std::int32_t id, const HeaderList& fields) = 0;
        virtual void answer_data(std::int32_t id, std::string_view bytes) = 0;
        // The answer is whole: its trailer fields.
        virtual void answer_end(std::int32_t id, HeaderList trailers) = 0;
        // Queued request bytes went out: there is room for more.
        virtual void request_room(std::int32_t id) = 0;
        // The stream closed, and how.
        virtual void closed(std::int32_t id, StreamEnd end) = 0;

    protected:
        ~Events() = default;
    };

    // `max_header_list_bytes`: the largest answer head (decoded) taken.
    ClientCodec(Events& events, std::size_t max_header_list_bytes);
    ~ClientCodec(); // out of line: Stream is complete only there
    ClientCodec(const ClientCodec&) = delete;
    ClientCodec& operator=(const ClientCodec&) = delete;

    bool start(); // the preface and the proxy's SETTINGS are queued
    // The origin's bytes. False: the connection is over (send() may still give a GOAWAY).
    bool receive(const std::uint8_t* data, std::size_t size);
    // Whether the proxy ended the connection because the origin broke HTTP/2's
    // rules (it sent, or is to send, a GOAWAY with an error code).
    bool ended_for_origin_fault() const { return origin_fault_; }

    // Whether another request may start now: no GOAWAY, and fewer streams open
    // than the origin's SETTINGS_MAX_CONCURRENT_STREAMS.
    bool can_open() const;
    std::size_t open_streams() const { return streams_.size(); }

    // A request: its head (`end_stream`: no body follows); returns the stream
    // id, or a negative nghttp2 error. Then body bytes (queued until the
    // origin's window takes them), and its end.
    std::int32_t submit(const HeaderList& fields, bool end_stream);
    void request_data(std::int32_t id, std::string_view bytes);
    void request_end(std::int32_t id);
    std::size_t request_queued(std::int32_t id) const;
    // The owner read `n` bytes of the stream's answer (framing included).
    void consumed(std::int32_t id, std::size_t n);
    // The owner gave up on the stream (its exchange ended first): CANCEL.
    void cancel(std::int32_t id);

    struct Stream; // per stream state, in the .cpp

private:
    friend struct ClientCallbacks;
    Stream* find(std::int32_t id);
    const Stream* find(std::int32_t id) const;

    Events& events_;
    std::size_t max_header_list_bytes_;
    std::map<std::int32_t, std::unique_ptr<Stream>> streams_;
    bool origin_fault_ = false;
};

} // namespace osf::h2
