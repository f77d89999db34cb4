// Unix sockets for the local backend: listening and connecting by path, and
// messages that carry file descriptors (SCM_RIGHTS).
#pragma once

#include "process/fd.hpp"

#include <string>
#include <vector>

namespace osf::local {

using process::Fd;

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

using process::write_all;

} // namespace osf::local
