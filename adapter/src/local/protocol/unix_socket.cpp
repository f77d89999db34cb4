#include "local/protocol/unix_socket.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace osf::local {

namespace {

[[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error(what + ": " + std::strerror(errno));
}

sockaddr_un unix_address(const std::string& path) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.size() >= sizeof(address.sun_path))
        throw std::runtime_error("socket path too long (" + std::to_string(path.size()) +
                                 " bytes, at most " + std::to_string(sizeof(address.sun_path) - 1) +
                                 "): " + path);
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    return address;
}

sockaddr_in loopback(int port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
}

} // namespace

Fd listen_unix(const std::string& path) {
    const sockaddr_un address = unix_address(path);
    Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd) fail("socket");
    ::unlink(path.c_str());
    if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0)
        fail("cannot bind " + path);
    if (::listen(fd.get(), 128) != 0) fail("cannot listen on " + path);
    return fd;
}

Fd connect_unix(const std::string& path) {
    const sockaddr_un address = unix_address(path);
    Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd) fail("socket");
    if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0)
        fail("cannot connect to " + path);
    return fd;
}

Fd listen_tcp_loopback(int port) {
    const sockaddr_in address = loopback(port);
    Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd) fail("socket");
    const int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0)
        fail("cannot bind 127.0.0.1:" + std::to_string(port));
    if (::listen(fd.get(), 128) != 0) fail("cannot listen on 127.0.0.1:" + std::to_string(port));
    return fd;
}

Fd connect_tcp_loopback(int port) {
    const sockaddr_in address = loopback(port);
    Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd) fail("socket");
    if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0)
        fail("cannot connect to 127.0.0.1:" + std::to_string(port));
    return fd;
}

void send_with_fds(int socket, const std::string& bytes, const std::vector<int>& fds) {
    iovec data{const_cast<char*>(bytes.data()), bytes.size()};
    msghdr message{};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    std::vector<char> control(CMSG_SPACE(sizeof(int) * fds.size()));
    if (!fds.empty()) {
        message.msg_control = control.data();
        message.msg_controllen = control.size();
        cmsghdr* header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
        std::memcpy(CMSG_DATA(header), fds.data(), sizeof(int) * fds.size());
    }
    ssize_t sent;
    do
        sent = ::sendmsg(socket, &message, MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    if (sent < 0) fail("sendmsg");
    if (static_cast<std::size_t>(sent) != bytes.size())
        throw std::runtime_error("sendmsg: short message");
}

bool receive_with_fds(int socket, std::string& bytes, std::vector<Fd>& fds, std::size_t max_bytes) {
    bytes.assign(max_bytes, '\0');
    iovec data{bytes.data(), bytes.size()};
    msghdr message{};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 8)];
    message.msg_control = control;
    message.msg_controllen = sizeof(control);
    ssize_t received;
    do
        received = ::recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    while (received < 0 && errno == EINTR);
    if (received < 0) fail("recvmsg");
    for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr;
         header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        const std::size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (std::size_t i = 0; i < count; ++i) {
            int fd;
            std::memcpy(&fd, CMSG_DATA(header) + i * sizeof(int), sizeof(int));
            fds.emplace_back(fd);
        }
    }
    bytes.resize(static_cast<std::size_t>(received));
    if (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
        throw std::runtime_error("recvmsg: message truncated");
    return received > 0 || !fds.empty();
}

} // namespace osf::local
