#include "local/protocol/byte_relay.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

using namespace osf::local;
namespace asio = boost::asio;
using Tcp = asio::ip::tcp;
using Local = asio::local::stream_protocol;

namespace {

int no_delay_of(int fd) {
    int value = -1;
    socklen_t size = sizeof(value);
    REQUIRE(::getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &value, &size) == 0);
    return value;
}

// Runs the loop until `done` or a bounded number of turns: the relay is
// asynchronous, the test's own reads and writes below are blocking.
template <typename Done> void run_until(asio::io_context& io, Done done) {
    for (int turn = 0; turn < 1000 && !done(); ++turn) {
        io.restart();
        io.run_for(std::chrono::milliseconds(5));
    }
}

} // namespace

TEST_CASE(
    "byte relay: a relayed TCP connection sends without Nagle's delay, bytes flow both ways") {
    // Before the loop: the relay's pending handlers, destroyed with the loop, still count.
    RelayCount count;
    asio::io_context io;
    Tcp::acceptor listener(io, Tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    Tcp::socket client(io);
    client.connect(listener.local_endpoint());
    Tcp::socket accepted = listener.accept();
    // An accepted socket starts with Nagle's algorithm on, as the agent's do.
    REQUIRE(no_delay_of(accepted.native_handle()) == 0);
    // The same socket seen through a second descriptor, after the relay owns it.
    const int watched = ::dup(accepted.native_handle());
    REQUIRE(watched >= 0);

    Local::socket inner(io), far(io);
    asio::local::connect_pair(inner, far);
    relay(std::move(accepted), std::move(inner), count);
    CHECK(count.open() == 1);
    CHECK(no_delay_of(watched) == 1);

    asio::write(client, asio::buffer(std::string("ping")));
    std::string got(4, '\0');
    std::size_t read = 0;
    far.non_blocking(true);
    run_until(io, [&] {
        boost::system::error_code error;
        read += far.read_some(asio::buffer(got.data() + read, got.size() - read), error);
        return read == got.size();
    });
    CHECK(got == "ping");

    asio::write(far, asio::buffer(std::string("pong")));
    client.non_blocking(true);
    read = 0;
    run_until(io, [&] {
        boost::system::error_code error;
        read += client.read_some(asio::buffer(got.data() + read, got.size() - read), error);
        return read == got.size();
    });
    CHECK(got == "pong");
    ::close(watched);
}

TEST_CASE("byte relay: only TCP sockets take the option") {
    asio::io_context io;
    Local::socket a(io), b(io);
    asio::local::connect_pair(a, b);
    CHECK_FALSE(send_without_delay(a));
    Tcp::acceptor listener(io, Tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    Tcp::socket client(io);
    client.connect(listener.local_endpoint());
    CHECK(send_without_delay(client));
    CHECK(no_delay_of(client.native_handle()) == 1);
}
