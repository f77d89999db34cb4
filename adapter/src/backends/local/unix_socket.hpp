// Unix sockets for the local backend: listening and connecting by path, and
// messages that carry file descriptors (SCM_RIGHTS).
#pragma once

#include <string>
#include <vector>

namespace osf::backends::local {

// An owned file descriptor.
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    Fd(Fd&& other) noexcept : fd_(other.release()) {}
    Fd& operator=(Fd&& other) noexcept;
    ~Fd();
    int get() const { return fd_; }
    int release();
    explicit operator bool() const { return fd_ >= 0; }

private:
    int fd_ = -1;
};

// Throw std::runtime_error naming the path and the errno text.
Fd listen_unix(const std::string& path);
Fd connect_unix(const std::string& path);
Fd listen_tcp_loopback(int port);
Fd connect_tcp_loopback(int port);

// One message: bytes plus descriptors. On a SOCK_SEQPACKET socket a message
// is one record; on a stream socket the caller frames it.
void send_with_fds(int socket, const std::string& bytes, const std::vector<int>& fds);
// Returns false at end of stream. Received descriptors are close-on-exec.
bool receive_with_fds(int socket, std::string& bytes, std::vector<Fd>& fds,
                      std::size_t max_bytes = 65536);

// Writes everything (retrying on EINTR and short writes); false on error.
bool write_all(int fd, const void* data, std::size_t size);

} // namespace osf::backends::local
