#include "admin/admin_server.hpp"

#include "admin/accept_pause.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <openssl/crypto.h>

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
    if (path == "/policy" && req.method() == http::verb::post) {
        // Authorized already (serve() read the body only then).
        const auto answer = h.change_policy(req.body());
        res.result(static_cast<http::status>(answer.status));
        res.set(http::field::content_type, answer.content_type);
        res.body() = answer.body;
    } else if (req.method() != http::verb::get && req.method() != http::verb::head) {
        res.result(http::status::method_not_allowed);
        res.body() = "only GET, and POST /policy\n";
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

// GET /healthz, /readyz and /metrics need no body and a small head (POST /policy
// has its own body limit, AdminHandlers::max_policy_bytes).
constexpr std::uint32_t kAdminHeadBytes = 8 * 1024;
constexpr std::uint64_t kAdminBodyBytes = 4 * 1024;
constexpr std::size_t kAdminReadBytes = 16 * 1024;

// Authorization: Bearer <token>, compared in constant time.
bool authorized(const http::request_parser<http::string_body>& parser, const std::string& token) {
    constexpr std::string_view scheme = "Bearer ";
    const auto field = parser.get()[http::field::authorization];
    if (token.empty() || field.size() != scheme.size() + token.size() ||
        !beast::iequals(field.substr(0, scheme.size()), scheme))
        return false;
    return CRYPTO_memcmp(field.data() + scheme.size(), token.data(), token.size()) == 0;
}

http::response<http::string_body> unauthorized(unsigned version) {
    http::response<http::string_body> res{http::status::unauthorized, version};
    res.set(http::field::content_type, "text/plain; charset=utf-8");
    res.set(http::field::www_authenticate, "Bearer");
    res.body() = "POST /policy needs Authorization: Bearer <the token in the proxy's "
                 "state directory, admin-token>\n";
    res.keep_alive(false);
    res.prepare_payload();
    return res;
}

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
        auto [hec, hn] = co_await http::async_read_header(stream, buffer, parser,
                                                          asio::as_tuple(asio::use_awaitable));
        if (hec) break; // closed, timed out, over a limit or garbage: nothing to answer
        const auto target = parser.get().target();
        if (parser.get().method() == http::verb::post &&
            target.substr(0, target.find('?')) == "/policy") {
            // Only the token's holder may send a body this large; anyone else is
            // answered before any of it is read, and the connection ends.
            if (!handlers.change_policy || !authorized(parser, handlers.token)) {
                auto res = unauthorized(parser.get().version());
                co_await http::async_write(stream, res, asio::as_tuple(asio::use_awaitable));
                break;
            }
            parser.body_limit(handlers.max_policy_bytes);
        }
        auto [ec, n] =
            co_await http::async_read(stream, buffer, parser, asio::as_tuple(asio::use_awaitable));
        if (ec) break;
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

AdminServer::AdminServer(std::unique_ptr<StreamListener> listener, AdminHandlers handlers)
    : listener_(std::move(listener)), handlers_(std::move(handlers)) {}

void AdminServer::start() {
    asio::co_spawn(
        listener_->executor(),
        [this]() -> asio::awaitable<void> {
            for (;;) {
                auto accepted = co_await listener_->accept();
                if (accepted.error) {
                    const auto next = after_accept_error(accepted.error, listener_->is_open());
                    if (next == AcceptNext::stop) co_return;
                    if (next == AcceptNext::pause) { // out of descriptors: wait, do not spin
                        asio::steady_timer pause(listener_->executor(), kAcceptPause);
                        co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
                    }
                    continue;
                }
                asio::co_spawn(listener_->executor(), serve(std::move(accepted.socket), handlers_),
                               asio::detached);
            }
        },
        asio::detached);
}

void AdminServer::stop() {
    listener_->close();
}

} // namespace osf::admin
