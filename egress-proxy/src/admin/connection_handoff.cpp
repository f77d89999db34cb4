#include "admin/connection_handoff.hpp"

#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <sys/socket.h>
#include <unistd.h>

namespace osf::admin {

namespace asio = boost::asio;

namespace {

// At most this many sockets in one message; more are cut off (and closed by
// the kernel). sandbox-local's agent sends its two listeners in one.
constexpr std::size_t kFdsPerMessage = 8;

int socket_option(int fd, int name) {
    int value = -1;
    socklen_t size = sizeof(value);
    if (::getsockopt(fd, SOL_SOCKET, name, &value, &size) != 0) return -1;
    return value;
}

} // namespace

Handed handed_kind(int fd) {
    const int domain = socket_option(fd, SO_DOMAIN);
    if ((domain != AF_INET && domain != AF_INET6 && domain != AF_UNIX) ||
        socket_option(fd, SO_TYPE) != SOCK_STREAM)
        return Handed::unusable;
    switch (socket_option(fd, SO_ACCEPTCONN)) {
    case 1:
        return domain == AF_UNIX ? Handed::unusable : Handed::listener;
    case 0:
        return Handed::connection;
    default:
        return Handed::unusable;
    }
}

ConnectionHandoff::ConnectionHandoff(asio::io_context& io, int fd) : descriptor_(io) {
    const int domain = socket_option(fd, SO_DOMAIN);
    if (domain == -1 && errno == EBADF) throw std::invalid_argument("no such open descriptor");
    if (domain != AF_UNIX || socket_option(fd, SO_TYPE) != SOCK_SEQPACKET)
        throw std::invalid_argument("not a Unix SOCK_SEQPACKET socket");
    descriptor_.assign(fd);
}

asio::awaitable<std::vector<int>> ConnectionHandoff::receive() {
    for (;;) {
        auto [ec] = co_await descriptor_.async_wait(asio::posix::descriptor_base::wait_read,
                                                    asio::as_tuple(asio::use_awaitable));
        if (ec) co_return std::vector<int>{};
        char byte = 0;
        iovec data{&byte, 1};
        alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int) * kFdsPerMessage)> control{};
        msghdr message{};
        message.msg_iov = &data;
        message.msg_iovlen = 1;
        message.msg_control = control.data();
        message.msg_controllen = control.size();
        const ssize_t n =
            ::recvmsg(descriptor_.native_handle(), &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        if (n <= 0) co_return std::vector<int>{}; // the sender is gone
        std::vector<int> handed;
        for (cmsghdr* c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c)) {
            if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
            const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (std::size_t i = 0; i < count; ++i) {
                int fd = -1;
                std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                if (handed_kind(fd) != Handed::unusable)
                    handed.push_back(fd);
                else
                    ::close(fd);
            }
        }
        if (!handed.empty()) co_return handed;
    }
}

void ConnectionHandoff::close() {
    boost::system::error_code ignored;
    descriptor_.close(ignored);
}

namespace {

// A handed socket in an Asio object of `io` (a socket or an acceptor); a
// Unix connection goes in a TCP socket object, as StreamListener's do: only
// read and written.
template <class Object>
Object assigned(asio::io_context& io, int fd, boost::system::error_code& error) {
    Object object(io);
    object.assign(socket_option(fd, SO_DOMAIN) == AF_INET6 ? asio::ip::tcp::v6()
                                                           : asio::ip::tcp::v4(),
                  fd, error);
    if (error) ::close(fd);
    return object;
}

} // namespace

asio::ip::tcp::socket as_client_socket(asio::io_context& into, int fd,
                                       boost::system::error_code& error) {
    return assigned<asio::ip::tcp::socket>(into, fd, error);
}

asio::ip::tcp::acceptor as_acceptor(asio::io_context& io, int fd,
                                    boost::system::error_code& error) {
    return assigned<asio::ip::tcp::acceptor>(io, fd, error);
}

} // namespace osf::admin
