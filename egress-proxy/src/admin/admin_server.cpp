#include "admin/admin_server.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <chrono>

namespace osf::admin {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;

namespace {

http::response<http::string_body> answer(const http::request<http::string_body>& req,
                                         const AdminHandlers& h) {
    http::response<http::string_body> res{http::status::ok, req.version()};
    res.set(http::field::content_type, "text/plain; charset=utf-8");
    const auto target = req.target();
    const auto path = target.substr(0, target.find('?'));
    if (req.method() != http::verb::get && req.method() != http::verb::head) {
        res.result(http::status::method_not_allowed);
        res.body() = "only GET\n";
    } else if (path == "/healthz") {
        res.body() = "ok\n";
    } else if (path == "/readyz") {
        const bool ready = h.ready && h.ready();
        res.result(ready ? http::status::ok : http::status::service_unavailable);
        res.body() = ready ? "ready\n" : "not ready\n";
    } else if (path == "/metrics") {
        res.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
        res.body() = h.metrics ? h.metrics() : std::string();
    } else {
        res.result(http::status::not_found);
        res.body() = "not found: /healthz /readyz /metrics\n";
    }
    res.keep_alive(req.keep_alive());
    res.prepare_payload();
    return res;
}

// GET /healthz, /readyz and /metrics need no body and a small head.
constexpr std::uint32_t kAdminHeadBytes = 8 * 1024;
constexpr std::uint64_t kAdminBodyBytes = 4 * 1024;
constexpr std::size_t kAdminReadBytes = 16 * 1024;

asio::awaitable<void> serve(tcp::socket socket, const AdminHandlers& handlers) {
    beast::tcp_stream stream(std::move(socket));
    // Bounded as the proxy's own connections are: a chunk-size line or trailer
    // section that never ends fills the buffer and ends the connection.
    beast::flat_buffer buffer{kAdminReadBytes};
    for (;;) {
        http::request_parser<http::string_body> parser;
        parser.header_limit(kAdminHeadBytes);
        parser.body_limit(kAdminBodyBytes);
        stream.expires_after(std::chrono::seconds(30));
        auto [ec, n] =
            co_await http::async_read(stream, buffer, parser, asio::as_tuple(asio::use_awaitable));
        if (ec) break; // closed, timed out, over a limit or garbage: nothing to answer
        auto req = parser.release();
        auto res = answer(req, handlers);
        auto [wec, wn] =
            co_await http::async_write(stream, res, asio::as_tuple(asio::use_awaitable));
        if (wec || !res.keep_alive()) break;
    }
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
}

} // namespace

AdminServer::AdminServer(asio::any_io_executor executor, const tcp::endpoint& at,
                         AdminHandlers handlers)
    : acceptor_(executor, at), handlers_(std::move(handlers)) {}

void AdminServer::start() {
    asio::co_spawn(
        acceptor_.get_executor(),
        [this]() -> asio::awaitable<void> {
            for (;;) {
                auto [ec, socket] =
                    co_await acceptor_.async_accept(asio::as_tuple(asio::use_awaitable));
                if (ec) {
                    if (ec == asio::error::operation_aborted || !acceptor_.is_open()) co_return;
                    continue;
                }
                asio::co_spawn(acceptor_.get_executor(), serve(std::move(socket), handlers_),
                               asio::detached);
            }
        },
        asio::detached);
}

void AdminServer::stop() {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
}

tcp::endpoint AdminServer::local_endpoint() const {
    return acceptor_.local_endpoint();
}

} // namespace osf::admin
