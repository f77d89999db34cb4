// Sockets another process made, handed to the proxy to serve as its own: each
// message on a Unix SOCK_SEQPACKET socket the proxy was started with
// (--handoff-fd N) carries stream sockets (SCM_RIGHTS), listening ones (the
// proxy accepts on them) or connected ones (it serves them). sandbox-local's
// agent hands over its listeners on 127.0.0.1:8080 and :1080 inside the
// sandbox's network namespace, so the sandbox's connections reach the proxy
// with no process between. Whatever arrives is checked: a TCP or Unix stream
// socket, anything else is closed.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <vector>

namespace osf::admin {

// What a handed socket is: a stream socket of AF_INET, AF_INET6 or AF_UNIX,
// listening or connected; anything else is unusable.
enum class Handed { listener, connection, unusable };
Handed handed_kind(int fd);

class ConnectionHandoff {
public:
    // Takes `fd`; throws std::invalid_argument when it is not open or not a
    // Unix SOCK_SEQPACKET socket.
    ConnectionHandoff(boost::asio::io_context& io, int fd);

    // The next message's sockets, each a listener or a connection (anything
    // else is closed); empty once the sender is gone or close() was called.
    boost::asio::awaitable<std::vector<int>> receive();
    bool is_open() const { return descriptor_.is_open(); }
    void close();

private:
    boost::asio::posix::stream_descriptor descriptor_;
};

// A handed connection as a socket of `into`, for the request path.
boost::asio::ip::tcp::socket as_client_socket(boost::asio::io_context& into, int fd,
                                              boost::system::error_code& error);
// A handed listener as an acceptor of `io` (its connections arrive as TCP
// sockets; a Unix listener's as StreamListener gives them).
boost::asio::ip::tcp::acceptor as_acceptor(boost::asio::io_context& io, int fd,
                                           boost::system::error_code& error);

} // namespace osf::admin
