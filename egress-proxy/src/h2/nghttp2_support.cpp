#include "h2/nghttp2_support.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace osf::h2 {

std::vector<nghttp2_nv> to_nv(const HeaderList& fields) {
    std::vector<nghttp2_nv> nv;
    nv.reserve(fields.size());
    for (const auto& f : fields)
        nv.push_back({reinterpret_cast<std::uint8_t*>(const_cast<char*>(f.name.data())),
                      reinterpret_cast<std::uint8_t*>(const_cast<char*>(f.value.data())),
                      f.name.size(), f.value.size(), NGHTTP2_NV_FLAG_NONE});
    return nv;
}

Session::~Session() {
    if (session_) nghttp2_session_del(session_);
}

bool Session::want_read() const {
    return nghttp2_session_want_read(session_) != 0;
}

bool Session::want_write() const {
    return nghttp2_session_want_write(session_) != 0;
}

void Session::send(std::string& out, std::size_t max) {
    while (out.size() < max) {
        const std::uint8_t* data = nullptr;
        const auto n = nghttp2_session_mem_send(session_, &data);
        if (n <= 0) return;
        out.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
    }
}

nghttp2_session* new_session(bool server, void (*set_callbacks)(nghttp2_session_callbacks*),
                             void* user, const std::vector<nghttp2_settings_entry>& settings,
                             std::int32_t connection_window) {
    nghttp2_session_callbacks* callbacks = nullptr;
    if (nghttp2_session_callbacks_new(&callbacks) != 0) return nullptr;
    set_callbacks(callbacks);
    nghttp2_option* option = nullptr;
    if (nghttp2_option_new(&option) != 0) {
        nghttp2_session_callbacks_del(callbacks);
        return nullptr;
    }
    nghttp2_option_set_no_auto_window_update(option, 1);
    nghttp2_option_set_no_closed_streams(option, 1);
    nghttp2_session* session = nullptr;
    const int rv = server ? nghttp2_session_server_new2(&session, callbacks, user, option)
                          : nghttp2_session_client_new2(&session, callbacks, user, option);
    nghttp2_option_del(option);
    nghttp2_session_callbacks_del(callbacks);
    if (rv != 0) return nullptr;
    if (nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, settings.data(), settings.size()) !=
            0 ||
        nghttp2_session_set_local_window_size(session, NGHTTP2_FLAG_NONE, 0, connection_window) !=
            0) {
        nghttp2_session_del(session);
        return nullptr;
    }
    return session;
}

bool IncomingWindow::received(nghttp2_session* session, std::size_t n) {
    if (waiting_ + n > static_cast<std::size_t>(stream_window)) {
        nghttp2_session_consume_connection(session, n);
        return false;
    }
    waiting_ += n;
    return true;
}

void IncomingWindow::read(nghttp2_session* session, std::int32_t id, std::size_t n) {
    const std::size_t credit = std::min(n, waiting_);
    if (credit == 0) return;
    waiting_ -= credit;
    nghttp2_session_consume(session, id, credit);
}

void IncomingWindow::release(nghttp2_session* session, std::int32_t id, bool stream_open) {
    if (waiting_ == 0) return;
    if (stream_open)
        nghttp2_session_consume(session, id, waiting_);
    else
        nghttp2_session_consume_connection(session, waiting_);
    waiting_ = 0;
}

void OutgoingBody::append(nghttp2_session* session, std::int32_t id, std::string_view bytes) {
    if (ended_ || bytes.empty()) return;
    bytes_.append(bytes);
    resume(session, id);
}

void OutgoingBody::end(nghttp2_session* session, std::int32_t id) {
    if (ended_) return;
    ended_ = true;
    resume(session, id);
}

void OutgoingBody::resume(nghttp2_session* session, std::int32_t id) {
    if (!deferred_) return;
    deferred_ = false;
    nghttp2_session_resume_data(session, id);
}

ssize_t OutgoingBody::read(std::uint8_t* buf, std::size_t length, bool& eof) {
    const std::size_t n = std::min(length, queued());
    std::memcpy(buf, bytes_.data() + pos_, n);
    pos_ += n;
    if (pos_ == bytes_.size()) {
        bytes_.clear();
        pos_ = 0;
    }
    eof = ended_ && queued() == 0;
    if (n == 0 && !eof) {
        deferred_ = true;
        return NGHTTP2_ERR_DEFERRED;
    }
    return static_cast<ssize_t>(n);
}

void OutgoingBody::clear() {
    std::string().swap(bytes_);
    pos_ = 0;
}

} // namespace osf::h2
