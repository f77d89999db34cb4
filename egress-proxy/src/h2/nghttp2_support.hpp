// What the two codecs share in talking to nghttp2 (a C library).
#pragma once

#include "h2/message_mapping.hpp"

#include <cstddef>
#include <nghttp2/nghttp2.h>
#include <string>
#include <string_view>
#include <vector>

namespace osf::h2 {

// The windows each codec grants its peer: a stream's body bytes, and all
// streams' together, that may wait for the owner.
inline constexpr std::int32_t stream_window = 64 * 1024;
inline constexpr std::int32_t connection_window = 1024 * 1024;

// The fields as nghttp2 takes them: pointers into `fields`, which must live
// until the call that takes them returns (nghttp2 copies them).
std::vector<nghttp2_nv> to_nv(const HeaderList& fields);

// The nghttp2 session a codec owns, and what either codec does with it alone.
class Session {
public:
    Session() = default;
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // Appends what is to go to the peer to `out`, until about `max` bytes.
    void send(std::string& out, std::size_t max);
    // Whether the connection goes on: reading, or with something to send.
    bool want_read() const;
    bool want_write() const;

protected:
    nghttp2_session* session_ = nullptr;
};

// A session as both codecs make it: `set_callbacks` fills in the callbacks;
// the windows open only as the owner reads (no automatic WINDOW_UPDATE);
// closed streams are not kept; `settings` are queued and the connection's
// window is `connection_window`. Null when nghttp2 could not make it.
nghttp2_session* new_session(bool server, void (*set_callbacks)(nghttp2_session_callbacks*),
                             void* user, const std::vector<nghttp2_settings_entry>& settings,
                             std::int32_t connection_window);

// The DATA payload of a stream received and not read by the owner yet: it
// holds the stream's and the connection's windows, which open only as the
// owner reads (the codecs turn nghttp2's automatic WINDOW_UPDATE off).
class IncomingWindow {
public:
    // A DATA payload arrived; false when it does not fit the stream's window.
    // nghttp2 resets such a stream, but hands over the payload that overflowed
    // first: it is dropped here (its connection window given back), so no more
    // than the window ever waits.
    bool received(nghttp2_session* session, std::size_t n);
    // The owner read `n` bytes (framing included): the windows open by that
    // much, at most what waits, so never early by more than framing.
    void read(nghttp2_session* session, std::int32_t id, std::size_t n);
    // Nobody will read the rest: both windows open (`stream_open`), or only
    // the connection's (a closed stream's own went with it).
    void release(nghttp2_session* session, std::int32_t id, bool stream_open);

private:
    std::size_t waiting_ = 0;
};

// The bytes of a stream's body waiting for the peer's window: nghttp2 takes
// them through read() (its data provider); a read that finds none yet defers
// the stream, and append() or end() then tells nghttp2 to ask again.
class OutgoingBody {
public:
    std::size_t queued() const { return bytes_.size() - pos_; }
    bool ended() const { return ended_; }
    void append(nghttp2_session* session, std::int32_t id, std::string_view bytes);
    void end(nghttp2_session* session, std::int32_t id);
    // For the data provider: copies what fits into `buf` and says whether the
    // body ends with it (`eof`); NGHTTP2_ERR_DEFERRED when nothing waits yet.
    ssize_t read(std::uint8_t* buf, std::size_t length, bool& eof);
    void clear();

private:
    void resume(nghttp2_session* session, std::int32_t id);

    std::string bytes_;
    std::size_t pos_ = 0;
    bool ended_ = false;
    bool deferred_ = false;
};

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
