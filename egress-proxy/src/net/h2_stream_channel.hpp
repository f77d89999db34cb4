// One HTTP/2 stream as the HTTP/1.1 code sees it: a byte stream whose reads
// take what the HTTP/2 connection pushed in (a client's request body; an
// upstream's answer, as HTTP/1.1 bytes) and whose writes go to the connection
// (the answer the request path writes; the request forward() writes), which
// sends them as HTTP/2 frames. So one request path, with every rule it keeps,
// serves both protocols on both legs. Models Asio's AsyncReadStream and
// AsyncWriteStream for Beast, with one deadline for reads and writes as
// beast::tcp_stream and TlsStream have.
#pragma once

#include <algorithm>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/compose.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/container/small_vector.hpp>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

namespace osf::net {

class H2StreamChannel {
public:
    // The connection's end of the stream.
    class Peer {
    public:
        // `n` bytes were read: the stream's flow-control window may open.
        virtual void read_done(std::size_t n) = 0;
        // Takes the bytes of one write, in pieces (a message's framing and its
        // data come as separate buffers; taken together, a head and the end of
        // its message are seen as one). Returns how many: all, or 0 when full
        // until room() is called.
        virtual std::size_t take(std::span<const std::string_view> pieces) = 0;

    protected:
        ~Peer() = default;
    };

    using executor_type = boost::asio::any_io_executor;

    H2StreamChannel(executor_type executor, Peer& peer)
        : executor_(executor), peer_(peer), read_wake_(executor), write_wake_(executor) {}
    H2StreamChannel(const H2StreamChannel&) = delete;
    H2StreamChannel& operator=(const H2StreamChannel&) = delete;

    executor_type get_executor() const { return executor_; }

    void expires_after(std::chrono::steady_clock::duration d) {
        deadline_ = std::chrono::steady_clock::now() + d;
    }
    void expires_at(std::chrono::steady_clock::time_point t) { deadline_ = t; }
    void expires_never() { deadline_ = std::chrono::steady_clock::time_point::max(); }

    // The connection's side: bytes in, their end, room for more writing, the
    // stream gone (every read and write fails from then on, with `error`).
    void push(std::string_view bytes) {
        if (in_pos_ == in_.size()) {
            in_.clear();
            in_pos_ = 0;
        }
        in_.append(bytes);
        read_wake_.cancel();
    }
    void end() {
        in_end_ = true;
        read_wake_.cancel();
    }
    void room() { write_wake_.cancel(); }
    // The first reset's error stands: a later one (the exchange giving up on a
    // stream the origin had refused) must not hide why it ended.
    void reset(boost::system::error_code error = boost::asio::error::connection_reset) {
        if (reset_) return;
        reset_ = true;
        error_ = error;
        in_.clear();
        in_.shrink_to_fit();
        in_pos_ = 0;
        read_wake_.cancel();
        write_wake_.cancel();
    }
    bool is_reset() const { return reset_; }
    // Bytes pushed in and not read yet.
    std::size_t buffered() const { return in_.size() - in_pos_; }

    template <class Buffers, class Token>
    auto async_read_some(const Buffers& buffers, Token&& token) {
        return boost::asio::async_compose<Token, void(boost::system::error_code, std::size_t)>(
            ReadOp<Buffers>{*this, buffers}, token, executor_);
    }
    template <class Buffers, class Token>
    auto async_write_some(const Buffers& buffers, Token&& token) {
        return boost::asio::async_compose<Token, void(boost::system::error_code, std::size_t)>(
            WriteOp<Buffers>{*this, buffers}, token, executor_);
    }

private:
    bool expired() const { return std::chrono::steady_clock::now() >= deadline_; }

    // The first step is posted (a completion never runs inside the initiating
    // call); after that each wake-up (a cancelled wait) or the deadline (the
    // wait's end) checks again.
    template <class Buffers> struct ReadOp {
        H2StreamChannel& c;
        Buffers buffers;
        bool started = false;
        template <class Self> void operator()(Self& self, boost::system::error_code = {}) {
            if (!started) {
                started = true;
                return boost::asio::post(c.executor_, std::move(self));
            }
            if (c.reset_) return self.complete(c.error_, 0);
            if (boost::asio::buffer_size(buffers) == 0) return self.complete({}, 0);
            if (c.in_pos_ < c.in_.size()) {
                const std::size_t n = boost::asio::buffer_copy(
                    buffers,
                    boost::asio::buffer(c.in_.data() + c.in_pos_, c.in_.size() - c.in_pos_));
                c.in_pos_ += n;
                c.peer_.read_done(n);
                return self.complete({}, n);
            }
            if (c.in_end_) return self.complete(boost::asio::error::eof, 0);
            if (c.expired()) return self.complete(boost::beast::error::timeout, 0);
            c.read_wake_.expires_at(c.deadline_);
            c.read_wake_.async_wait(std::move(self));
        }
    };
    template <class Buffers> struct WriteOp {
        H2StreamChannel& c;
        Buffers buffers;
        bool started = false;
        template <class Self> void operator()(Self& self, boost::system::error_code = {}) {
            if (!started) {
                started = true;
                return boost::asio::post(c.executor_, std::move(self));
            }
            if (c.reset_) return self.complete(c.error_, 0);
            boost::container::small_vector<std::string_view, 4> pieces;
            for (auto it = boost::asio::buffer_sequence_begin(buffers);
                 it != boost::asio::buffer_sequence_end(buffers); ++it) {
                const boost::asio::const_buffer b = *it;
                if (b.size() > 0) pieces.emplace_back(static_cast<const char*>(b.data()), b.size());
            }
            const std::size_t taken =
                pieces.empty()
                    ? 0
                    : c.peer_.take(std::span<const std::string_view>(pieces.data(), pieces.size()));
            if (taken > 0 || boost::asio::buffer_size(buffers) == 0)
                return self.complete({}, taken);
            if (c.expired()) return self.complete(boost::beast::error::timeout, 0);
            c.write_wake_.expires_at(c.deadline_);
            c.write_wake_.async_wait(std::move(self));
        }
    };

    executor_type executor_;
    Peer& peer_;
    std::string in_;
    std::size_t in_pos_ = 0;
    bool in_end_ = false;
    bool reset_ = false;
    boost::system::error_code error_;
    boost::asio::steady_timer read_wake_;
    boost::asio::steady_timer write_wake_;
    std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
};

} // namespace osf::net
