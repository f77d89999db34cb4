// Relaying connections byte for byte on one Asio event loop: the sandbox's
// TCP connections to 127.0.0.1:8080 to the egress socket (the agent), and the
// egress socket's connections to the proxy's Unix socket (the supervisor).
// Bounded: at most kMaxRelayedConnections pairs at once (more are closed as
// they arrive), two buffers of kRelayBufferBytes each; no thread per
// connection.
#pragma once

#include <array>
#include <boost/asio.hpp>
#include <cstddef>
#include <memory>
#include <type_traits>

namespace osf::local {

inline constexpr std::size_t kMaxRelayedConnections = 1024;
inline constexpr std::size_t kRelayBufferBytes = 16 * 1024;

class RelayCount {
public:
    bool full() const { return open_ >= kMaxRelayedConnections; }
    std::size_t open() const { return open_; }
    void opened() { ++open_; }
    void closed() { --open_; }

private:
    std::size_t open_ = 0;
};

// A relay writes what it has read at once, often a small piece (an answer's
// head, then its body): with Nagle's algorithm on, the second piece waits for
// the peer's delayed acknowledgement of the first, about 40 ms on Linux. True
// when the socket is TCP and now sends without that wait.
template <typename Socket> bool send_without_delay(Socket& socket) {
    if constexpr (std::is_same_v<typename Socket::protocol_type, boost::asio::ip::tcp>) {
        boost::system::error_code error;
        socket.set_option(boost::asio::ip::tcp::no_delay(true), error);
        return !error;
    } else {
        return false;
    }
}

namespace detail {

template <typename A, typename B>
class RelayPair : public std::enable_shared_from_this<RelayPair<A, B>> {
public:
    RelayPair(A a, B b, RelayCount& count) : a_(std::move(a)), b_(std::move(b)), count_(count) {
        count_.opened();
    }
    ~RelayPair() { count_.closed(); }

    void start() {
        // Connected synchronously: never a blocking read inside the loop.
        boost::system::error_code ignored;
        a_.non_blocking(true, ignored);
        b_.non_blocking(true, ignored);
        send_without_delay(a_);
        send_without_delay(b_);
        pump(a_, b_, a_to_b_);
        pump(b_, a_, b_to_a_);
    }

private:
    using Buffer = std::array<char, kRelayBufferBytes>;

    // Reads from `from`, writes all of it to `to`, again; at end of input
    // shuts down writing on `to` (the peer sees the half-close); on an error
    // closes both (a reset).
    template <typename From, typename To> void pump(From& from, To& to, Buffer& buffer) {
        from.async_read_some(
            boost::asio::buffer(buffer), [self = this->shared_from_this(), &from, &to, &buffer](
                                             boost::system::error_code error, std::size_t got) {
                if (error) {
                    boost::system::error_code ignored;
                    if (error == boost::asio::error::eof) {
                        to.shutdown(To::shutdown_send, ignored);
                    } else {
                        from.close(ignored);
                        to.close(ignored);
                    }
                    return;
                }
                boost::asio::async_write(to, boost::asio::buffer(buffer.data(), got),
                                         [self, &from, &to, &buffer](
                                             boost::system::error_code write_error, std::size_t) {
                                             if (write_error) {
                                                 boost::system::error_code ignored;
                                                 from.close(ignored);
                                                 to.close(ignored);
                                                 return;
                                             }
                                             self->pump(from, to, buffer);
                                         });
            });
    }

    A a_;
    B b_;
    RelayCount& count_;
    Buffer a_to_b_{};
    Buffer b_to_a_{};
};

} // namespace detail

// Relays `a` and `b` until both directions end; the pair lives as long as an
// operation on it is pending.
template <typename A, typename B> void relay(A a, B b, RelayCount& count) {
    std::make_shared<detail::RelayPair<A, B>>(std::move(a), std::move(b), count)->start();
}

} // namespace osf::local
