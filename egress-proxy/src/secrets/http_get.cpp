#include "secrets/http_get.hpp"

#include "osf/host_port.hpp"
#include "secrets/openbao_address.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <optional>

namespace osf::secrets {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

constexpr std::size_t max_body = 1024 * 1024; // an OpenBao answer is a few hundred bytes

HttpGetReply failed(HttpGetReply::Failure failure, std::string detail) {
    HttpGetReply reply;
    reply.failure = failure;
    reply.detail = std::move(detail);
    return reply;
}

std::string host_header(const HttpGetRequest& request) {
    const std::string host = osf::bracketed_host(request.host);
    const bool default_port = request.port == (request.tls ? "443" : "80");
    return default_port ? host : host + ":" + request.port;
}

// Why certificate verification failed, in OpenSSL's words ("hostname
// mismatch", "unable to get local issuer certificate").
std::string tls_detail(SSL* ssl, const beast::error_code& ec) {
    const long verify = SSL_get_verify_result(ssl);
    if (verify != X509_V_OK) return X509_verify_cert_error_string(verify);
    return ec.message();
}

template <class Stream>
asio::awaitable<HttpGetReply> exchange(Stream& stream, const HttpGetRequest& request) {
    http::request<http::empty_body> message{http::verb::get, request.target, 11};
    message.set(http::field::host, host_header(request));
    message.set(http::field::user_agent, "osf-egress-proxy");
    message.set(http::field::accept, "application/json");
    message.set(http::field::connection, "close");
    for (const auto& [name, value] : request.headers)
        message.set(name, value);

    beast::error_code ec;
    co_await http::async_write(stream, message, asio::redirect_error(asio::use_awaitable, ec));
    if (ec)
        co_return failed(HttpGetReply::Failure::Connect, "sending the request: " + ec.message());

    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(max_body);
    co_await http::async_read(stream, buffer, parser,
                              asio::redirect_error(asio::use_awaitable, ec));
    if (ec)
        co_return failed(HttpGetReply::Failure::Protocol, "reading the answer: " + ec.message());
    HttpGetReply reply;
    reply.status = static_cast<int>(parser.get().result_int());
    reply.body = std::move(parser.get().body());
    co_return reply;
}

asio::awaitable<HttpGetReply> run(const HttpGetRequest& request, ssl::context& tls_context) {
    auto executor = co_await asio::this_coro::executor;
    beast::error_code ec;
    tcp::resolver resolver(executor);
    auto endpoints = co_await resolver.async_resolve(request.host, request.port,
                                                     asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return failed(HttpGetReply::Failure::Resolve, ec.message());

    beast::tcp_stream tcp_stream(executor);
    co_await tcp_stream.async_connect(endpoints, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return failed(HttpGetReply::Failure::Connect, ec.message());
    if (!request.tls) co_return co_await exchange(tcp_stream, request);

    beast::ssl_stream<beast::tcp_stream> stream(std::move(tcp_stream), tls_context);
    SSL* ssl = stream.native_handle();
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    if (is_ip_literal(request.host)) {
        X509_VERIFY_PARAM_set1_ip_asc(param, request.host.c_str());
    } else {
        SSL_set_tlsext_host_name(ssl, request.host.c_str());
        X509_VERIFY_PARAM_set1_host(param, request.host.c_str(), request.host.size());
    }
    co_await stream.async_handshake(ssl::stream_base::client,
                                    asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return failed(HttpGetReply::Failure::Tls, tls_detail(ssl, ec));
    co_return co_await exchange(stream, request);
}

} // namespace

HttpGetReply http_get(const HttpGetRequest& request) {
    ssl::context tls_context(ssl::context::tls_client);
    tls_context.set_verify_mode(ssl::verify_peer);
    beast::error_code ec;
    tls_context.set_default_verify_paths(ec);
    if (ec) return failed(HttpGetReply::Failure::Setup, "system trust store: " + ec.message());
    for (const auto& file : request.extra_ca_files) {
        tls_context.load_verify_file(file, ec);
        if (ec)
            return failed(HttpGetReply::Failure::Setup, "CA bundle " + file + ": " + ec.message());
    }

    // Declared after what the coroutine refers to, so that it is destroyed
    // first, together with an exchange abandoned at the deadline.
    std::optional<HttpGetReply> result;
    asio::io_context io;
    asio::co_spawn(io, run(request, tls_context),
                   [&result](std::exception_ptr error, HttpGetReply value) {
                       if (error)
                           result = failed(HttpGetReply::Failure::Protocol, "unexpected failure");
                       else
                           result = std::move(value);
                   });
    io.run_for(request.timeout);
    if (!result) {
        const auto ms = request.timeout.count();
        return failed(HttpGetReply::Failure::Timeout,
                      "no answer within " + (ms % 1000 == 0 ? std::to_string(ms / 1000) + " s"
                                                            : std::to_string(ms) + " ms"));
    }
    return std::move(*result);
}

} // namespace osf::secrets
