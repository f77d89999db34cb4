#include "net/http_proxy_session.hpp"

#include "admission/connect_admission.hpp"
#include "hosts/host.hpp"
#include "net/exchange.hpp"
#include "net/h2_session.hpp"
#include "net/local_reply.hpp"
#include "net/raw_tunnel.hpp"
#include "net/request_handler.hpp"
#include "net/stream_kinds.hpp"
#include "net/tls_stream.hpp"
#include "net/worker.hpp"
#include "osf/host_port.hpp"

#include <boost/beast/core/detect_ssl.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/url/parse.hpp>
#include <openssl/ssl.h>

namespace osf::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;
using RequestHead = http::request_parser<http::empty_body>;

namespace {

// Unregisters a socket that is about to go (the registration outlives it).
struct SocketLease {
    ClientRegistration& registration;
    ~SocketLease() { registration.set_socket(nullptr); }
};

bool is_quiet_close(const beast::error_code& ec) {
    return ec == http::error::end_of_stream || ec == asio::error::eof ||
           ec == asio::error::connection_reset || ec == asio::error::operation_aborted ||
           ec == beast::error::timeout || ec == asio::ssl::error::stream_truncated ||
           ec == http::error::partial_message;
}

// Reads request heads and handles them until the connection ends. The
// session's tunnel is null on the proxy-facing connection (absolute-form
// requests, CONNECT). Returns how many requests it handled (each with its
// own log line).
template <class Stream> asio::awaitable<std::size_t> serve_requests(ClientSession<Stream>& s);

asio::awaitable<void> handle_connect(ClientSession<beast::tcp_stream>& s, RequestHead& head);

// A CONNECT is served on the proxy-facing connection only: true when it was.
asio::awaitable<bool> serve_connect(ClientSession<beast::tcp_stream>& s, RequestHead& head) {
    if (s.tunnel) co_return false;
    co_await handle_connect(s, head);
    co_return true;
}
asio::awaitable<bool> serve_connect(ClientSession<TlsStream>&, RequestHead&) {
    co_return false; // a CONNECT inside an intercepted tunnel
}

// A request the proxy cannot read: logged and answered with what was parsed
// of it (the method and the destination, when the request line got that far).
template <class Stream>
asio::awaitable<void> answer_bad_request(ProxyRuntime& ctx, Stream& stream,
                                         const ConnectionInfo& conn, const TunnelTarget* tunnel,
                                         const http::request_parser<http::empty_body>& head,
                                         const beast::error_code& ec) {
    const auto& req = head.get();
    Exchange ex(ctx, conn, std::string(req.method_string()));
    ex.rec.host = tunnel ? tunnel->host : "";
    ex.rec.port = tunnel ? tunnel->port : 0;
    ex.rec.scheme = tunnel && tunnel->tls ? "https" : "http";
    if (!tunnel && !req.target().empty()) {
        if (auto url = boost::urls::parse_absolute_uri(req.target())) {
            const auto named = hosts::canonical_host(url->encoded_host());
            ex.rec.host = named ? *named : std::string(url->encoded_host());
            ex.rec.scheme = url->scheme() == "https" ? "https" : "http";
            ex.rec.path = std::string(url->encoded_path());
        } else if (req.method() == http::verb::connect) {
            if (const auto hp = hosts::split_host_port(req.target(), 443)) {
                ex.rec.host = hp->host;
                ex.rec.port = hp->port;
            }
        }
    } else if (tunnel) {
        const auto target = req.target();
        ex.rec.path = std::string(target.substr(0, target.find('?')));
    }
    const auto refusal = head_read_refusal(ec);
    co_await refuse(stream, ex, refusal.status, refusal.reason, refusal.detail);
}

template <class Stream> asio::awaitable<std::size_t> serve_requests(ClientSession<Stream>& s) {
    auto& ctx = s.ctx;
    auto& stream = s.stream;
    auto& buffer = s.buffer;
    bool first = true;
    std::size_t handled = 0;
    for (;;) {
        if (ctx.draining.load()) co_return handled;
        http::request_parser<http::empty_body> head;
        head.header_limit(static_cast<std::uint32_t>(ctx.config.limits().max_header_bytes));
        head.body_limit(boost::none); // bodies stream; MCP messages get their own limit
        expire_in(stream, first && !s.tunnel ? ctx.config.limits().header_timeout
                                             : ctx.config.limits().idle_timeout);
        s.registration.set_idle(true);
        if (buffer.size() == 0) {
            buffer.shrink_to_fit(); // idle connections hold no buffer
            // The read below allocates a buffer: where it can, an idle stream waits without one.
            if (auto wec = co_await wait_for_next_request(stream)) co_return handled;
        }
        auto [ec, n] = co_await http::async_read_header(stream, buffer, head, use_tuple);
        s.registration.set_idle(false);
        first = false;
        if (ec) {
            if (is_quiet_close(ec)) co_return handled;
            co_await answer_bad_request(ctx, stream, s.conn, s.tunnel, head, ec);
            co_return handled + 1;
        }
        ++handled;
        if (head.get().method() == http::verb::connect) {
            if (!co_await serve_connect(s, head))
                co_await answer_bad_request(ctx, stream, s.conn, s.tunnel, head,
                                            http::error::bad_method);
            co_return handled;
        }
        const bool keep = co_await handle_request(s, head);
        if (!keep) co_return handled;
    }
}

// After "200 Connection established": TLS is intercepted, plain HTTP is
// served as it is, anything else is cut off and logged.
asio::awaitable<void> handle_connect(ClientSession<beast::tcp_stream>& s, RequestHead& head) {
    auto& ctx = s.ctx;
    auto& stream = s.stream;
    auto& buffer = s.buffer;
    const auto& conn = s.conn;
    // The CONNECT's own line: written when it is refused or fails, or when the
    // tunnel ends without a single request (which would otherwise leave no trace).
    Exchange ex(ctx, conn, "CONNECT");
    ex.rec.scheme = "https";
    ex.client_keep = false;
    ex.client_version = head.get().version() == 10 ? 10 : 11;
    // A tunnel is admitted under the rules in force now; each request inside it
    // is admitted again under the rules in force when it comes.
    const auto rules = ctx.rules();
    auto admitted = admission::admit_connect(rules->policy, head.get().target());
    ex.rec.policy = rules->generation;
    ex.rec.host = std::move(admitted.logged.host);
    ex.rec.port = admitted.logged.port;
    if (const auto& refusal = admitted.refusal) {
        co_await refuse(stream, ex, refusal->status, refusal->reason, refusal->detail);
        co_return;
    }
    if (admitted.raw) {
        ex.rec.scheme = "tcp";
        ex.rec.via = "connect";
    }
    // A raw tunnel's upstream is connected before the 200: a failure is a 502 the client reads.
    auto reached =
        co_await reach_tunnel(ctx, std::move(admitted.host), admitted.port, admitted.raw);
    if (reached.error) {
        co_await fail(stream, ex, *reached.error, reached.detail);
        co_return;
    }
    if (reached.refused_by) {
        co_await refuse(stream, ex, http::status::forbidden, *reached.refused_by, reached.detail);
        co_return;
    }
    auto& target = reached.target;

    static constexpr std::string_view established = "HTTP/1.1 200 Connection established\r\n\r\n";
    stream.expires_after(ctx.config.limits().idle_timeout);
    auto [wec, wn] = co_await asio::async_write(stream, asio::buffer(established), use_tuple);
    if (wec) {
        ex.finish_error(ErrorKind::client_closed, 0);
        co_return;
    }
    ex.responded = true;
    ex.rec.status = 200;
    if (admitted.raw) {
        stream.expires_never(); // the relay keeps its own idle time
        s.registration.set_destination(target.host, target.port, true);
        co_await relay_raw(ctx, s.registration, stream.socket(), *reached.raw, buffer, ex, 200);
        co_return;
    }
    co_await serve_intercepted_tunnel(s, ex, target);
}

} // namespace

asio::awaitable<void> serve_intercepted_tunnel(ClientSession<beast::tcp_stream>& s, Exchange& ex,
                                               TunnelTarget& target) {
    auto& ctx = s.ctx;
    auto& stream = s.stream;
    auto& buffer = s.buffer;
    const auto& conn = s.conn;
    const int status = ex.rec.status;
    s.registration.set_destination(target.host, target.port); // a revoke of it ends the tunnel
    OpenGauge tunnels(ctx.metrics.open_tunnels);
    // The tunnel's requests carry the lines from here; none at all is an error.
    auto end_tunnel = [&ex, status](std::size_t requests, ErrorKind error) {
        if (requests > 0)
            ex.carried_by_requests();
        else
            ex.finish_error(error, status);
    };

    stream.expires_after(ctx.config.limits().header_timeout);
    auto [dec, is_tls] = co_await beast::async_detect_ssl(stream, buffer, use_tuple);
    if (dec) {
        end_tunnel(0, ErrorKind::no_request);
        co_return;
    }
    if (!is_tls) {
        // Plain HTTP inside the tunnel (ws:// and http:// through CONNECT) is served
        // like any request; bytes that are not HTTP get a 400 and a log line.
        target.tls = false;
        ex.rec.scheme = "http";
        ClientSession<beast::tcp_stream> inner{ctx,     s.worker, stream, buffer, s.registration,
                                               &target, conn};
        const auto requests = co_await serve_requests(inner);
        end_tunnel(requests, ErrorKind::no_request);
        co_return;
    }

    // OpenSSL reads the socket itself from here on; what detect_ssl has read
    // already reaches it first.
    auto tls_context = std::static_pointer_cast<asio::ssl::context>(ctx.issuers->get(target.host));
    if (!tls_context) { // never for an admitted host: a change adds its CA before its rules
        spdlog::warn("connection {}: no CA may sign for {}", conn.id, target.host);
        end_tunnel(0, ErrorKind::client_tls);
        co_return;
    }
    const auto first_bytes = buffer.cdata();
    TlsStream tls(
        stream.release_socket(), *tls_context,
        std::string_view(static_cast<const char*>(first_bytes.data()), first_bytes.size()));
    buffer.consume(buffer.size());
    s.registration.set_socket(&tls.socket());
    const SocketLease lease{s.registration};
    tls.expires_after(ctx.config.limits().header_timeout);
    auto [hec] = co_await tls.async_handshake(use_tuple);
    if (hec) {
        spdlog::debug("connection {}: TLS handshake with the client failed: {}", conn.id,
                      hec.message());
        end_tunnel(0, ErrorKind::client_tls);
        co_return;
    }
    if (const char* sni = SSL_get_servername(tls.native_handle(), TLSEXT_NAMETYPE_host_name)) {
        const auto named = hosts::canonical_host(sni);
        if (!named || *named != target.host)
            target.sni_problem = "the TLS server name (SNI) names another host";
    }
    ClientSession<TlsStream> inner{ctx, s.worker, tls, buffer, s.registration, &target, conn};
    const unsigned char* alpn = nullptr;
    unsigned int alpn_size = 0;
    SSL_get0_alpn_selected(tls.native_handle(), &alpn, &alpn_size);
    const bool http2 = std::string_view(reinterpret_cast<const char*>(alpn), alpn_size) == "h2";
    const auto requests = http2 ? co_await serve_h2(inner) : co_await serve_requests(inner);
    end_tunnel(requests, ErrorKind::no_request);
    tls.shutdown();
}

asio::awaitable<void> serve_proxy_requests(ClientSession<beast::tcp_stream>& s) {
    co_await serve_requests(s);
}

} // namespace osf::net
