#include "h2/server_codec.hpp"

#include "h2/nghttp2_support.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <nghttp2/nghttp2.h>
#include <vector>

namespace osf::h2 {

struct ServerCodec::Stream {
    HeaderList fields;        // the request's, until it starts; then its trailer fields
    std::string method, path; // kept for the log line of a header list over the limit
    std::size_t header_list_bytes = 0;
    bool too_large = false;
    bool refused = false; // over the requests in flight: reset at once
    bool started = false;
    bool chunked = false;
    bool request_done = false; // the owner is done with the request
    bool closed = false;       // nghttp2 closed the stream
    IncomingWindow unread;     // the request's
    // The answer.
    bool head_sent = false;
    OutgoingBody body;
    HeaderList trailers;
};

struct Callbacks {
    static ServerCodec& codec(void* user) { return *static_cast<ServerCodec*>(user); }

    static int begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user) {
        auto& c = codec(user);
        if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST)
            return 0;
        auto st = std::make_unique<ServerCodec::Stream>();
        // Requests whose request path still runs count, reset ones too:
        // resetting a stream does not stop the work it started ("rapid reset").
        // After shutdown() no stream starts: the GOAWAY's last stream id may
        // already be sent, and a stream past it is one the client retries.
        st->refused = c.goaway_ || c.in_flight_ >= c.limits_.max_streams;
        c.streams_[frame->hd.stream_id] = std::move(st);
        return 0;
    }

    static int header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
                      std::size_t namelen, const std::uint8_t* value, std::size_t valuelen,
                      std::uint8_t, void* user) {
        auto& c = codec(user);
        if (frame->hd.type != NGHTTP2_HEADERS) return 0;
        auto* st = c.find(frame->hd.stream_id);
        if (!st || st->refused || st->too_large) return 0;
        // RFC 9113 6.5.2: a field counts its name, its value and 32 bytes. Past
        // the limit nothing more is kept: an HPACK bomb costs time, not memory.
        st->header_list_bytes += namelen + valuelen + 32;
        if (st->header_list_bytes > c.limits_.max_header_list_bytes) {
            st->too_large = true;
            HeaderList().swap(st->fields);
            return 0;
        }
        st->fields.push_back({std::string(reinterpret_cast<const char*>(name), namelen),
                              std::string(reinterpret_cast<const char*>(value), valuelen)});
        if (!st->started && st->fields.back().name == ":method")
            st->method = st->fields.back().value;
        if (!st->started && st->fields.back().name == ":path") st->path = st->fields.back().value;
        return 0;
    }

    static int frame_recv(nghttp2_session* session, const nghttp2_frame* frame, void* user) {
        auto& c = codec(user);
        // Frames that ask for work but carry no request (PING, SETTINGS): a
        // token bucket, past which the connection ends with ENHANCE_YOUR_CALM.
        if ((frame->hd.type == NGHTTP2_PING || frame->hd.type == NGHTTP2_SETTINGS) &&
            !(frame->hd.flags & NGHTTP2_FLAG_ACK) && !c.take_control_token()) {
            nghttp2_session_terminate_session(session, NGHTTP2_ENHANCE_YOUR_CALM);
            return 0;
        }
        auto* st = c.find(frame->hd.stream_id);
        if (!st) return 0;
        const bool end_stream = frame->hd.flags & NGHTTP2_FLAG_END_STREAM;
        const auto id = frame->hd.stream_id;
        if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
            if (st->refused) {
                nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, id, NGHTTP2_REFUSED_STREAM);
                return 0;
            }
            Http1Request request;
            if (st->too_large) {
                request.method = std::move(st->method);
                request.path = std::move(st->path);
            } else {
                request = to_http1_request(st->fields, end_stream);
            }
            HeaderList().swap(st->fields); // from here on: trailer fields, a list of their own
            st->header_list_bytes = 0;
            st->started = true;
            st->chunked = request.chunked;
            ++c.in_flight_;
            c.events_.started(id, std::move(request), st->too_large);
            if (end_stream) c.events_.request_end(id);
            return 0;
        }
        if (!st->started || st->request_done || !end_stream) return 0;
        // The request's end: its last DATA, or trailer fields.
        if (st->chunked) {
            std::string last;
            append_last_chunk(st->too_large ? HeaderList{} : st->fields, last);
            c.events_.request_bytes(id, last);
        }
        HeaderList().swap(st->fields);
        c.events_.request_end(id);
        return 0;
    }

    static int data_chunk(nghttp2_session* session, std::uint8_t, std::int32_t id,
                          const std::uint8_t* data, std::size_t len, void* user) {
        auto& c = codec(user);
        auto* st = c.find(id);
        if (!st || !st->started || st->request_done) {
            nghttp2_session_consume(session, id, len); // nobody reads it: the windows open again
            return 0;
        }
        if (!st->unread.received(session, len)) return 0; // over the window: being reset
        const std::string_view bytes(reinterpret_cast<const char*>(data), len);
        if (st->chunked) {
            std::string piece;
            piece.reserve(len + 16);
            append_chunk(bytes, piece);
            c.events_.request_bytes(id, piece);
        } else {
            c.events_.request_bytes(id, bytes);
        }
        return 0;
    }

    static int frame_send(nghttp2_session* session, const nghttp2_frame* frame, void*) {
        // The answer is whole while the client still sends: the rest of its
        // request is not wanted (RFC 9113 8.1).
        if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
            (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) &&
            nghttp2_session_get_stream_remote_close(session, frame->hd.stream_id) == 0)
            nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, frame->hd.stream_id,
                                      NGHTTP2_NO_ERROR);
        return 0;
    }

    static int stream_close(nghttp2_session* session, std::int32_t id, std::uint32_t, void* user) {
        auto& c = codec(user);
        auto* st = c.find(id);
        if (!st) return 0;
        st->closed = true;
        st->unread.release(session, id, false);
        HeaderList().swap(st->fields);
        st->body.clear();
        if (st->started && !st->request_done) c.events_.stream_closed(id);
        c.forget_if_done(id);
        return 0;
    }

    static ssize_t read_answer(nghttp2_session* session, std::int32_t id, std::uint8_t* buf,
                               std::size_t length, std::uint32_t* data_flags, nghttp2_data_source*,
                               void* user) {
        auto& c = codec(user);
        auto* st = c.find(id);
        if (!st) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
        bool eof = false;
        const auto n = st->body.read(buf, length, eof);
        if (eof) {
            *data_flags |= NGHTTP2_DATA_FLAG_EOF;
            if (!st->trailers.empty()) {
                *data_flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM;
                const auto nv = to_nv(st->trailers);
                nghttp2_submit_trailer(session, id, nv.data(), nv.size());
            }
        }
        if (n > 0) c.events_.answer_room(id);
        return n;
    }
};

ServerCodec::ServerCodec(Events& events, CodecLimits limits) : events_(events), limits_(limits) {}

ServerCodec::~ServerCodec() = default;

ServerCodec::Stream* ServerCodec::find(std::int32_t id) {
    auto it = streams_.find(id);
    return it == streams_.end() ? nullptr : it->second.get();
}
const ServerCodec::Stream* ServerCodec::find(std::int32_t id) const {
    auto it = streams_.find(id);
    return it == streams_.end() ? nullptr : it->second.get();
}

void ServerCodec::forget_if_done(std::int32_t id) {
    auto it = streams_.find(id);
    if (it == streams_.end()) return;
    const auto& st = *it->second;
    if (st.closed && (!st.started || st.request_done)) streams_.erase(it);
}

bool ServerCodec::start() {
    session_ = new_session(
        true,
        [](nghttp2_session_callbacks* callbacks) {
            nghttp2_session_callbacks_set_on_begin_headers_callback(
                callbacks, &Guarded<&Callbacks::begin_headers>::call);
            nghttp2_session_callbacks_set_on_header_callback(callbacks,
                                                             &Guarded<&Callbacks::header>::call);
            nghttp2_session_callbacks_set_on_frame_recv_callback(
                callbacks, &Guarded<&Callbacks::frame_recv>::call);
            nghttp2_session_callbacks_set_on_data_chunk_recv_callback(
                callbacks, &Guarded<&Callbacks::data_chunk>::call);
            nghttp2_session_callbacks_set_on_frame_send_callback(
                callbacks, &Guarded<&Callbacks::frame_send>::call);
            nghttp2_session_callbacks_set_on_stream_close_callback(
                callbacks, &Guarded<&Callbacks::stream_close>::call);
        },
        this,
        {
            {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, limits_.max_streams},
            {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, static_cast<std::uint32_t>(stream_window)},
            {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE,
             static_cast<std::uint32_t>(limits_.max_header_list_bytes)},
            {NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES, 1},
        },
        connection_window);
    return session_ != nullptr;
}

bool ServerCodec::receive(const std::uint8_t* data, std::size_t size) {
    const auto rv = nghttp2_session_mem_recv(session_, data, size);
    if (rv >= 0) return want_read();
    // nghttp2 stops at a connection error (a flood, bad framing, a bad
    // preface) and may have queued no GOAWAY: the client is told why.
    const bool flood = rv == NGHTTP2_ERR_FLOODED || rv == NGHTTP2_ERR_TOO_MANY_CONTINUATIONS ||
                       rv == NGHTTP2_ERR_TOO_MANY_SETTINGS;
    nghttp2_session_terminate_session(session_,
                                      flood ? NGHTTP2_ENHANCE_YOUR_CALM : NGHTTP2_PROTOCOL_ERROR);
    return false;
}

bool ServerCodec::take_control_token() {
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - refilled_).count();
    refilled_ = now;
    control_tokens_ = std::min<double>(control_burst, control_tokens_ + seconds * control_rate);
    if (control_tokens_ < 1) return false;
    control_tokens_ -= 1;
    return true;
}

void ServerCodec::shutdown() {
    if (goaway_) return;
    goaway_ = true;
    nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE,
                          nghttp2_session_get_last_proc_stream_id(session_), NGHTTP2_NO_ERROR,
                          nullptr, 0);
}

void ServerCodec::consumed(std::int32_t id, std::size_t n) {
    auto* st = find(id);
    if (st && !st->closed) st->unread.read(session_, id, n);
}

void ServerCodec::request_done(std::int32_t id) {
    auto* st = find(id);
    if (!st || st->request_done) return;
    st->request_done = true;
    --in_flight_;
    if (!st->closed) st->unread.release(session_, id, true);
    forget_if_done(id);
}

void ServerCodec::answer_head(std::int32_t id, const HeaderList& fields, bool end_stream) {
    auto* st = find(id);
    if (!st || st->closed || st->head_sent) return;
    st->head_sent = true;
    const auto nv = to_nv(fields); // points into `fields`; nghttp2 copies them
    nghttp2_data_provider provider{};
    provider.read_callback = &Guarded<&Callbacks::read_answer>::call;
    if (end_stream) st->body.end(session_, id);
    nghttp2_submit_response(session_, id, nv.data(), nv.size(), end_stream ? nullptr : &provider);
}

void ServerCodec::answer_data(std::int32_t id, std::string_view bytes) {
    auto* st = find(id);
    if (!st || st->closed) return;
    st->body.append(session_, id, bytes);
}

void ServerCodec::answer_end(std::int32_t id, HeaderList trailers) {
    auto* st = find(id);
    if (!st || st->closed || st->body.ended()) return;
    st->trailers = std::move(trailers);
    st->body.end(session_, id);
}

void ServerCodec::reset(std::int32_t id, std::uint32_t error_code) {
    auto* st = find(id);
    if (!st || st->closed) return;
    nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, id, error_code);
}

std::size_t ServerCodec::answer_queued(std::int32_t id) const {
    const auto* st = find(id);
    return st ? st->body.queued() : 0;
}

} // namespace osf::h2
