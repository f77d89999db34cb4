#include "backends/local/byte_relay.hpp"

#include <array>
#include <cerrno>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace osf::backends::local {

void relay_bytes(Fd a, Fd b) {
    // Each direction: read from `from`, write to `to`; at end of input, shut
    // down writing on `to` so the peer sees the half-close.
    struct Direction {
        int from, to;
        bool open = true;
    };
    std::array<Direction, 2> directions{{{a.get(), b.get()}, {b.get(), a.get()}}};
    std::array<char, 64 * 1024> buffer{};
    while (directions[0].open || directions[1].open) {
        std::array<pollfd, 2> polls{};
        for (std::size_t i = 0; i < 2; ++i)
            polls[i] = {directions[i].open ? directions[i].from : -1, POLLIN, 0};
        if (::poll(polls.data(), polls.size(), -1) < 0) {
            if (errno == EINTR) continue;
            return;
        }
        for (std::size_t i = 0; i < 2; ++i) {
            auto& direction = directions[i];
            if (!direction.open || polls[i].revents == 0) continue;
            const ssize_t got = ::read(direction.from, buffer.data(), buffer.size());
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0 ||
                !write_all(direction.to, buffer.data(), static_cast<std::size_t>(got))) {
                direction.open = false;
                ::shutdown(direction.to, SHUT_WR);
                if (got < 0) return; // a reset: drop both directions
            }
        }
    }
}

void relay_in_background(Fd a, Fd b) {
    std::thread([a = std::move(a), b = std::move(b)]() mutable {
        relay_bytes(std::move(a), std::move(b));
    }).detach();
}

} // namespace osf::backends::local
