#include "h2/client_codec.hpp"

#include "h2/nghttp2_support.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <nghttp2/nghttp2.h>

namespace osf::h2 {

struct ClientCodec::Stream {
    HeaderList fields; // the answer head being decoded, then its trailer fields
    std::size_t header_list_bytes = 0;
    bool too_large = false;
    bool faulted = false;   // the proxy reset it for a fault of the origin's
    bool head_seen = false; // the final head was passed on
    IncomingWindow unread;  // the answer's
    OutgoingBody body;      // the request's
};

struct ClientCallbacks {
    static ClientCodec& codec(void* user) { return *static_cast<ClientCodec*>(user); }

    static int begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user) {
        auto* st = codec(user).find(frame->hd.stream_id);
        if (st) {
            HeaderList().swap(st->fields);
            st->header_list_bytes = 0;
        }
        return 0;
    }

    static int header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
                      std::size_t namelen, const std::uint8_t* value, std::size_t valuelen,
                      std::uint8_t, void* user) {
        auto& c = codec(user);
        auto* st = c.find(frame->hd.stream_id);
        if (!st || st->too_large) return 0;
        st->header_list_bytes += namelen + valuelen + 32;
        if (st->header_list_bytes > c.max_header_list_bytes_) {
            st->too_large = true;
            HeaderList().swap(st->fields);
            return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; // nghttp2 resets the stream
        }
        st->fields.push_back({std::string(reinterpret_cast<const char*>(name), namelen),
                              std::string(reinterpret_cast<const char*>(value), valuelen)});
        return 0;
    }

    static int frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user) {
        auto& c = codec(user);
        auto* st = c.find(frame->hd.stream_id);
        if (!st || st->too_large) return 0;
        const auto id = frame->hd.stream_id;
        const bool end_stream = frame->hd.flags & NGHTTP2_FLAG_END_STREAM;
        if (frame->hd.type == NGHTTP2_HEADERS && !st->head_seen) {
            // An interim 1xx head is left out; the final one is passed on.
            const bool interim = !st->fields.empty() && st->fields.front().name == ":status" &&
                                 st->fields.front().value.starts_with('1');
            if (!interim) {
                st->head_seen = true;
                c.events_.answer_head(id, st->fields);
            }
            HeaderList().swap(st->fields); // from here on: trailer fields, a list of their own
            st->header_list_bytes = 0;
            if (interim) return 0;
        }
        if (end_stream && st->head_seen) {
            HeaderList trailers;
            trailers.swap(st->fields);
            c.events_.answer_end(id, std::move(trailers));
        }
        return 0;
    }

    // What the proxy itself sends: a reset of a stream (other than the owner's
    // cancel()) or a GOAWAY with an error code is the origin's fault. nghttp2
    // calls this before it closes the reset stream.
    static int frame_send(nghttp2_session*, const nghttp2_frame* frame, void* user) {
        auto& c = codec(user);
        if (frame->hd.type == NGHTTP2_GOAWAY && frame->goaway.error_code != NGHTTP2_NO_ERROR)
            c.origin_fault_ = true;
        if (frame->hd.type == NGHTTP2_RST_STREAM && frame->rst_stream.error_code != NGHTTP2_CANCEL)
            if (auto* st = c.find(frame->hd.stream_id)) st->faulted = true;
        return 0;
    }

    static int data_chunk(nghttp2_session* session, std::uint8_t, std::int32_t id,
                          const std::uint8_t* data, std::size_t len, void* user) {
        auto& c = codec(user);
        auto* st = c.find(id);
        if (!st || !st->head_seen) {
            nghttp2_session_consume(session, id, len);
            return 0;
        }
        if (!st->unread.received(session, len)) return 0; // over the window: being reset
        c.events_.answer_data(id, std::string_view(reinterpret_cast<const char*>(data), len));
        return 0;
    }

    static int stream_close(nghttp2_session* session, std::int32_t id, std::uint32_t error_code,
                            void* user) {
        auto& c = codec(user);
        auto it = c.streams_.find(id);
        if (it == c.streams_.end()) return 0;
        it->second->unread.release(session, id, false);
        const auto& st = *it->second;
        const auto end = st.too_large                           ? StreamEnd::head_too_large
                         : st.faulted                           ? StreamEnd::origin_fault
                         : error_code == NGHTTP2_NO_ERROR       ? StreamEnd::closed
                         : error_code == NGHTTP2_REFUSED_STREAM ? StreamEnd::refused
                                                                : StreamEnd::reset;
        c.streams_.erase(it);
        c.events_.closed(id, end);
        return 0;
    }

    static ssize_t read_request(nghttp2_session*, std::int32_t id, std::uint8_t* buf,
                                std::size_t length, std::uint32_t* data_flags, nghttp2_data_source*,
                                void* user) {
        auto& c = codec(user);
        auto* st = c.find(id);
        if (!st) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
        bool eof = false;
        const auto n = st->body.read(buf, length, eof);
        if (eof) *data_flags |= NGHTTP2_DATA_FLAG_EOF;
        if (n > 0) c.events_.request_room(id);
        return n;
    }
};

ClientCodec::ClientCodec(Events& events, std::size_t max_header_list_bytes)
    : events_(events), max_header_list_bytes_(max_header_list_bytes) {}

ClientCodec::~ClientCodec() = default;

ClientCodec::Stream* ClientCodec::find(std::int32_t id) {
    auto it = streams_.find(id);
    return it == streams_.end() ? nullptr : it->second.get();
}
const ClientCodec::Stream* ClientCodec::find(std::int32_t id) const {
    auto it = streams_.find(id);
    return it == streams_.end() ? nullptr : it->second.get();
}

bool ClientCodec::start() {
    session_ = new_session(
        false,
        [](nghttp2_session_callbacks* callbacks) {
            nghttp2_session_callbacks_set_on_begin_headers_callback(
                callbacks, &Guarded<&ClientCallbacks::begin_headers>::call);
            nghttp2_session_callbacks_set_on_header_callback(
                callbacks, &Guarded<&ClientCallbacks::header>::call);
            nghttp2_session_callbacks_set_on_frame_recv_callback(
                callbacks, &Guarded<&ClientCallbacks::frame_recv>::call);
            nghttp2_session_callbacks_set_on_data_chunk_recv_callback(
                callbacks, &Guarded<&ClientCallbacks::data_chunk>::call);
            nghttp2_session_callbacks_set_on_stream_close_callback(
                callbacks, &Guarded<&ClientCallbacks::stream_close>::call);
            nghttp2_session_callbacks_set_on_frame_send_callback(
                callbacks, &Guarded<&ClientCallbacks::frame_send>::call);
        },
        this,
        {
            {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
            {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, static_cast<std::uint32_t>(stream_window)},
            {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE,
             static_cast<std::uint32_t>(max_header_list_bytes_)},
            {NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES, 1},
        },
        connection_window);
    return session_ != nullptr;
}

bool ClientCodec::receive(const std::uint8_t* data, std::size_t size) {
    const auto rv = nghttp2_session_mem_recv(session_, data, size);
    if (rv >= 0) return want_read();
    origin_fault_ = true; // a flood, or bytes nghttp2 could not take
    nghttp2_session_terminate_session(session_, NGHTTP2_PROTOCOL_ERROR);
    return false;
}

bool ClientCodec::can_open() const {
    if (!nghttp2_session_check_request_allowed(session_)) return false;
    const auto max =
        nghttp2_session_get_remote_settings(session_, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
    return streams_.size() < max;
}

std::int32_t ClientCodec::submit(const HeaderList& fields, bool end_stream) {
    const auto nv = to_nv(fields);
    nghttp2_data_provider provider{};
    provider.read_callback = &Guarded<&ClientCallbacks::read_request>::call;
    const auto id = nghttp2_submit_request(session_, nullptr, nv.data(), nv.size(),
                                           end_stream ? nullptr : &provider, nullptr);
    if (id < 0) return id;
    auto st = std::make_unique<Stream>();
    if (end_stream) st->body.end(session_, id);
    streams_[id] = std::move(st);
    return id;
}

void ClientCodec::request_data(std::int32_t id, std::string_view bytes) {
    if (auto* st = find(id)) st->body.append(session_, id, bytes);
}

void ClientCodec::request_end(std::int32_t id) {
    if (auto* st = find(id)) st->body.end(session_, id);
}

std::size_t ClientCodec::request_queued(std::int32_t id) const {
    const auto* st = find(id);
    return st ? st->body.queued() : 0;
}

void ClientCodec::consumed(std::int32_t id, std::size_t n) {
    if (auto* st = find(id)) st->unread.read(session_, id, n);
}

void ClientCodec::cancel(std::int32_t id) {
    if (!find(id)) return;
    nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
}

} // namespace osf::h2
