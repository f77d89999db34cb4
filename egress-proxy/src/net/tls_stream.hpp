// A TLS stream on a TCP socket where OpenSSL reads and writes the socket
// itself and Asio only waits for readiness: the client side of an intercepted
// tunnel (server role) and the connection to the upstream (client role).
// Asio's ssl::stream keeps four 17 KiB buffers per stream for its whole life
// (its own pair and the BIO pair) and copies every byte through them; here an
// idle stream holds no buffer at all (SSL_MODE_RELEASE_BUFFERS), which is what
// makes thousands of idle tunnels and pooled upstream connections cheap, and
// each read or write is one OpenSSL call on the socket. Models Asio's
// AsyncReadStream and AsyncWriteStream for Beast.
#pragma once

#include <algorithm>
#include <array>
#include <boost/asio/async_result.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/compose.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/error.hpp>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <string_view>

namespace osf::net {

// Empties this thread's OpenSSL error queue, which SSL_get_error reads. The
// queue is nearly always empty already, and ERR_clear_error wipes all of its
// slots whatever they hold: checking first saves most of its cost on every
// TLS read and write.
inline void clear_tls_errors() {
    if (ERR_peek_error() != 0) ERR_clear_error();
}

// Which end of the TLS handshake this side is.
enum class TlsRole { server, client };

class TlsStream {
public:
    using executor_type = boost::asio::ip::tcp::socket::executor_type;

    // Takes the socket; `context` must outlive the stream. `already_read` are
    // bytes of the peer's that were read from the socket before (they come
    // first, then the socket).
    TlsStream(boost::asio::ip::tcp::socket socket, boost::asio::ssl::context& context,
              std::string_view already_read = {}, TlsRole role = TlsRole::server);
    ~TlsStream();
    TlsStream(const TlsStream&) = delete;
    TlsStream& operator=(const TlsStream&) = delete;

    executor_type get_executor() { return socket_.get_executor(); }
    boost::asio::ip::tcp::socket& socket() { return socket_; }
    SSL* native_handle() { return ssl_; }

    // Every wait for the socket from now on fails with beast::error::timeout at
    // `d`, reads and writes alike (as beast::tcp_stream). The timer behind it is
    // moved, not cancelled, when operations end: it keeps the io_context busy
    // until it fires or the stream is destroyed.
    void expires_after(std::chrono::steady_clock::duration d) {
        deadline_ = std::chrono::steady_clock::now() + d;
    }
    void expires_never() { deadline_ = std::chrono::steady_clock::time_point::max(); }

    // True when OpenSSL holds bytes of the client's not yet handed out: a read
    // can go on without the socket becoming readable.
    bool has_pending() const;

    // The peer cannot have answered yet (its request has only just gone out):
    // the next read waits for the socket first instead of trying a read that
    // would find nothing, one system call less per request.
    void wait_before_next_read() { wait_first_ = true; }

    // Sends close_notify if it can without waiting.
    void shutdown();

    template <class Token> auto async_handshake(Token&& token) {
        return boost::asio::async_compose<Token, void(boost::system::error_code)>(
            Op<HandshakeIo, ErrorOnly>{*this, {}}, token, socket_);
    }
    template <class Buffers, class Token>
    auto async_read_some(const Buffers& buffers, Token&& token) {
        return boost::asio::async_compose<Token, void(boost::system::error_code, std::size_t)>(
            Op<ReadIo<Buffers>, Transfer>{*this, ReadIo<Buffers>{buffers}}, token, socket_);
    }
    template <class Buffers, class Token>
    auto async_write_some(const Buffers& buffers, Token&& token) {
        return boost::asio::async_compose<Token, void(boost::system::error_code, std::size_t)>(
            Op<WriteIo<Buffers>, Transfer>{*this, WriteIo<Buffers>{buffers}}, token, socket_);
    }
    // Waits until there is something to read, in OpenSSL or on the socket
    // (the deadline applies). Holds no buffer while it waits.
    template <class Token> auto async_wait_readable(Token&& token) {
        return boost::asio::async_compose<Token, void(boost::system::error_code)>(
            Op<WaitIo, ErrorOnly>{*this, {}}, token, socket_);
    }

private:
    enum class Step { done, want_read, want_write, failed };
    struct Result {
        Result(Step s, std::size_t b = 0, boost::system::error_code e = {})
            : step(s), bytes(b), ec(e) {}
        Step step;
        std::size_t bytes;
        boost::system::error_code ec;
    };
    Result check(int ok, std::size_t bytes);

    // What an operation completes with: an error_code, or an error_code and a byte count.
    struct ErrorOnly {};
    struct Transfer {};
    struct HandshakeIo {
        static constexpr bool writes = false;
        Result run(TlsStream& s) { return s.check(SSL_do_handshake(s.ssl_), 0); }
    };
    struct WaitIo {
        static constexpr bool writes = false;
        bool waited = false;
        Result run(TlsStream& s) {
            if (waited || s.has_pending()) return {Step::done};
            waited = true;
            return {Step::want_read};
        }
    };
    template <class Buffers> struct ReadIo {
        static constexpr bool writes = false;
        Buffers buffers;
        Result run(TlsStream& s) {
            auto b = first_nonempty(buffers);
            if (b.size() == 0) return {Step::done};
            if (s.wait_first_) {
                s.wait_first_ = false;
                if (!s.has_pending()) return {Step::want_read};
            }
            std::size_t n = 0;
            const int ok = SSL_read_ex(s.ssl_, b.data(), b.size(), &n);
            return s.check(ok, n); // n is only meaningful when ok
        }
    };
    template <class Buffers> struct WriteIo {
        static constexpr bool writes = true;
        Buffers buffers;
        Result run(TlsStream& s) {
            // Beast hands a message over as many small buffers (a head is one per
            // field, a chunk is its size line, its data and CRLF): they go out in
            // one SSL_write, so as full TLS records and as few sends as possible,
            // not a record and a send each. One pass over the sequence (Beast's
            // buffer iterators are costly): a lone buffer, or one too big to
            // gather, goes as it is. A retry after want_write copies the same
            // bytes again, as OpenSSL requires.
            const char* data = nullptr;
            std::size_t size = 0;
            bool gathering = false;
            for (auto it = boost::asio::buffer_sequence_begin(buffers);
                 it != boost::asio::buffer_sequence_end(buffers); ++it) {
                const boost::asio::const_buffer b = *it;
                if (b.size() == 0) continue;
                if (!data) {
                    data = static_cast<const char*>(b.data());
                    size = b.size();
                    if (size >= gather_bytes) break;
                    continue;
                }
                if (!gathering) {
                    std::memcpy(gather_scratch.data(), data, size);
                    data = gather_scratch.data();
                    gathering = true;
                }
                const std::size_t take = std::min(gather_bytes - size, b.size());
                std::memcpy(gather_scratch.data() + size, b.data(), take);
                size += take;
                if (size == gather_bytes) break;
            }
            if (size == 0) return {Step::done};
            std::size_t n = 0;
            const int ok = SSL_write_ex(s.ssl_, data, size, &n);
            return s.check(ok, n); // n is only meaningful when ok
        }
    };
    // A relay piece (64 KiB) with its chunk framing; one per thread, shared by all writes.
    static constexpr std::size_t gather_bytes = 64 * 1024 + 256;
    inline static thread_local std::array<char, gather_bytes> gather_scratch{};
    template <class Buffers> static auto first_nonempty(const Buffers& buffers) {
        using Buffer = std::decay_t<decltype(*boost::asio::buffer_sequence_begin(buffers))>;
        for (auto it = boost::asio::buffer_sequence_begin(buffers);
             it != boost::asio::buffer_sequence_end(buffers); ++it) {
            const Buffer b = *it;
            if (b.size() > 0) return b;
        }
        return Buffer{};
    }

    // The composed operation: try the OpenSSL call; wait for the socket when
    // it wants to read or write; complete through a post when it finished at
    // once (never inline from the initiating call). A read and a write may be
    // pending at the same time; the stream's deadline covers both.
    template <class Io, class Kind> struct Op {
        TlsStream& s;
        Io io;
        bool waiting = false;

        template <class Self> void operator()(Self& self, boost::system::error_code ec = {}) {
            const bool resumed = waiting;
            if (waiting) {
                waiting = false;
                --s.waits_;
                if (ec) {
                    if (ec == boost::asio::error::operation_aborted && s.expired())
                        ec = boost::beast::error::timeout;
                    return finish<Kind>(self, ec, 0);
                }
            }
            for (;;) {
                clear_tls_errors(); // SSL_get_error reads the thread's queue: start it empty
                errno = 0;          // and SSL_ERROR_SYSCALL reads errno
                const Result r = io.run(s);
                if (r.step == Step::want_read && s.switch_to_socket()) continue;
                switch (r.step) {
                case Step::want_read:
                case Step::want_write:
                    if (s.expired())
                        return s.complete_later(
                            self, resumed, {Step::failed, 0, boost::beast::error::timeout}, Kind{});
                    waiting = true;
                    ++s.waits_;
                    s.watch_deadline();
                    s.socket_.async_wait(r.step == Step::want_read
                                             ? boost::asio::socket_base::wait_read
                                             : boost::asio::socket_base::wait_write,
                                         std::move(self));
                    return;
                case Step::done:
                case Step::failed:
                    return s.complete_later(self, resumed, r, Kind{});
                }
            }
        }
    };

    template <class Kind, class Self>
    static void finish(Self& self, boost::system::error_code ec, std::size_t bytes) {
        if constexpr (std::is_same_v<Kind, Transfer>)
            self.complete(ec, bytes);
        else
            self.complete(ec);
    }

    // Completes at once after a wait; otherwise as a fresh handler, as Asio's sockets do.
    template <class Self, class Kind>
    void complete_later(Self& self, bool resumed, Result r, Kind) {
        if (resumed) return finish<Kind>(self, r.ec, r.bytes);
        boost::asio::post(socket_.get_executor(), [self = std::move(self), r]() mutable {
            finish<Kind>(self, r.ec, r.bytes);
        });
    }

    bool expired() const { return std::chrono::steady_clock::now() >= deadline_; }
    // Makes sure the timer fires no later than the deadline. One timer per
    // stream, set again only when a wait needs an earlier time than it is set
    // for: each request moves the deadline later, and setting the timer for
    // every wait (a timer-queue update, then a cancelled handler to run) was
    // measurable per request (docs/benchmark.md). When it fires before the deadline
    // (which moved on), it is set again for the deadline if a wait is pending.
    void watch_deadline();
    // Once the bytes read before are used up, OpenSSL reads the socket from
    // now on. False when it already does, or some of those bytes are left.
    bool switch_to_socket();

    boost::asio::ip::tcp::socket socket_;
    SSL* ssl_ = nullptr;
    BIO* socket_bio_ = nullptr; // owned here until OpenSSL reads through it
    boost::asio::steady_timer timer_;
    std::chrono::steady_clock::time_point timer_at_ =
        std::chrono::steady_clock::time_point::max(); // max: not set
    std::uint64_t timer_generation_ = 0;              // which setting a firing belongs to
    unsigned waits_ = 0;                              // socket waits pending
    std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
    bool wait_first_ = false;
    // Timer handlers may run after the stream is gone: they hold this weakly.
    std::shared_ptr<TlsStream*> self_ = std::make_shared<TlsStream*>(this);
};

} // namespace osf::net
