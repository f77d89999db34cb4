#include "net/client_session.hpp"

#include "net/http_proxy_session.hpp"
#include "net/socks5_session.hpp"
#include "net/use_tuple.hpp"
#include "net/worker.hpp"

#include <boost/beast/core/read_size.hpp>
#include <boost/beast/core/tcp_stream.hpp>

namespace osf::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
using asio::ip::tcp;

asio::awaitable<void> run_client_session(ProxyRuntime& ctx, Worker& worker, tcp::socket socket,
                                         std::string client) {
    ConnectionInfo conn;
    conn.id = ctx.next_connection.fetch_add(1);
    beast::error_code ec;
    conn.client = std::move(client);
    socket.set_option(tcp::no_delay(true), ec); // fails, harmlessly, on a Unix socket
    OpenGauge open(ctx.metrics.open_connections);
    ctx.metrics.connections_total.fetch_add(1, std::memory_order_relaxed);
    beast::tcp_stream stream(std::move(socket));
    ClientRegistration registration(worker, conn.id, &stream.socket());
    beast::flat_buffer buffer{ctx.config.limits().read_buffer_bytes()};
    ClientSession<beast::tcp_stream> session{ctx,          worker,  stream, buffer,
                                             registration, nullptr, conn};
    // HTTP and SOCKS5 share the listener: a SOCKS5 greeting starts with its version, 5,
    // which no HTTP request line does.
    stream.expires_after(ctx.config.limits().header_timeout);
    // Sized as Beast's own first read of a head (512 bytes into an empty buffer): an idle
    // connection costs no more than before.
    auto [rec, n] = co_await stream.async_read_some(
        buffer.prepare(beast::read_size(buffer, 64 * 1024)), use_tuple);
    if (rec || n == 0) co_return;
    buffer.commit(n);
    if (static_cast<const std::uint8_t*>(buffer.cdata().data())[0] == 0x05) {
        conn.via = "socks5";
        co_await serve_socks5(session);
    } else {
        co_await serve_proxy_requests(session);
    }
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
}

} // namespace osf::net
