#include "local/agent/proxy_connect.hpp"

#include "local/launch/sandbox_environment.hpp"
#include "local/protocol/connect_request.hpp"
#include "process/fd.hpp"

#include <arpa/inet.h>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

namespace osf::local::agent {

namespace {

using process::Fd;

constexpr const char* kName = "sandbox-local connect: ";
// A proxy's answer to CONNECT is a status line and a few headers.
constexpr std::size_t kMaxAnswerBytes = 16 * 1024;

bool send_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t sent = ::write(fd, data, size);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) return false;
        data += sent;
        size -= static_cast<std::size_t>(sent);
    }
    return true;
}

Fd dial_proxy(int& error) {
    Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd) {
        error = errno;
        return fd;
    }
    // ssh's keystrokes and a database's small queries: never held back.
    const int one = 1;
    ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(kSandboxProxyPort));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        error = errno;
        return Fd();
    }
    return fd;
}

// Byte by byte up to the blank line: nothing of the tunnel is read here.
std::optional<ConnectAnswer> read_answer(int fd) {
    std::string head;
    char c = 0;
    while (head.size() < kMaxAnswerBytes) {
        const ssize_t got = ::read(fd, &c, 1);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return std::nullopt;
        head.push_back(c);
        if (c == '\n')
            if (auto answer = parse_connect_answer(head)) return answer;
    }
    return ConnectAnswer{0, "an answer longer than " + std::to_string(kMaxAnswerBytes) + " bytes"};
}

// Both directions until both have ended: standard input's end is passed on
// as a half-close; the tunnel's end closes standard output.
int relay(int tunnel) {
    std::array<char, 16 * 1024> buffer{};
    bool input_open = true, tunnel_open = true;
    while (input_open || tunnel_open) {
        pollfd fds[2] = {{input_open ? 0 : -1, POLLIN, 0}, {tunnel_open ? tunnel : -1, POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            return 1;
        }
        if (input_open && fds[0].revents != 0) {
            const ssize_t got = ::read(0, buffer.data(), buffer.size());
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) {
                input_open = false;
                ::shutdown(tunnel, SHUT_WR);
            } else if (!send_all(tunnel, buffer.data(), static_cast<std::size_t>(got))) {
                return 1;
            }
        }
        if (tunnel_open && fds[1].revents != 0) {
            const ssize_t got = ::read(tunnel, buffer.data(), buffer.size());
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) {
                tunnel_open = false;
                ::close(1);
                if (got < 0) return 1;
                // The far end has gone: what is still typed has nowhere to go.
                break;
            }
            if (!send_all(1, buffer.data(), static_cast<std::size_t>(got))) return 1;
        }
    }
    return 0;
}

} // namespace

int run_proxy_connect(const char* host, const char* port) {
    ::signal(SIGPIPE, SIG_IGN);
    if (auto problem = connect_target_problem(host, port)) {
        std::cerr << kName << *problem << "\n";
        return 2;
    }
    const std::string target = std::string(host) + ":" + port;
    int error = 0;
    Fd tunnel = dial_proxy(error);
    if (!tunnel) {
        std::cerr << kName << "cannot reach the egress proxy at 127.0.0.1:" << kSandboxProxyPort
                  << ": " << std::strerror(error) << "\n";
        return 1;
    }
    const std::string request = connect_request(host, port);
    if (!send_all(tunnel.get(), request.data(), request.size())) {
        std::cerr << kName << "the egress proxy closed the connection\n";
        return 1;
    }
    const auto answer = read_answer(tunnel.get());
    if (!answer) {
        std::cerr << kName << "the egress proxy closed the connection to " << target << "\n";
        return 1;
    }
    if (answer->status != 200) {
        std::cerr << kName << "the egress proxy refused " << target << " (" << answer->reason
                  << "): only the spec's tcp destinations are reachable\n";
        return 1;
    }
    return relay(tunnel.get());
}

} // namespace osf::local::agent
