#include "net/upstream.hpp"

#include "config/upstream_tls.hpp"
#include "hosts/host.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <mutex>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <optional>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

namespace osf::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
using asio::ip::tcp;

tcp::socket& UpstreamConnection::socket() {
    return visit([](auto& s) -> tcp::socket& { return s.socket(); });
}

bool UpstreamConnection::holds_unread() {
    const auto* secure = std::get_if<TlsStream>(&stream);
    return buffer.size() > 0 || (secure && secure->has_pending()); // in our buffer or OpenSSL's
}

bool UpstreamConnection::still_open() {
    if (holds_unread()) return false; // unsolicited bytes: the framing is off, do not reuse
    char byte;
    const auto fd = socket().native_handle();
    const ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    // 0: orderly close; > 0: a TLS close_notify or garbage; -1 EAGAIN: open and quiet.
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

std::string upstream_key(std::string_view host, std::uint16_t port, bool tls, bool offered_h2) {
    std::string key = tls ? "https://" : "http://";
    key.append(host);
    key.push_back(':');
    key.append(std::to_string(port));
    if (offered_h2) key.append(" h2");
    return key;
}

std::unique_ptr<UpstreamConnection> UpstreamPool::take(const std::string& key) {
    auto it = idle_.find(key);
    if (it == idle_.end()) return nullptr;
    auto& queue = it->second;
    const auto now = std::chrono::steady_clock::now();
    while (!queue.empty()) {
        auto connection = std::move(queue.back()); // most recently used: least likely closed
        queue.pop_back();
        const auto idle = now - connection->idle_since;
        if (idle < max_idle_age && connection->still_open()) {
            if (queue.empty()) idle_.erase(it);
            connection->reused = true;
            return connection;
        }
    }
    idle_.erase(it);
    return nullptr;
}

void UpstreamPool::put(std::unique_ptr<UpstreamConnection> connection) {
    if (connection->h2()) return;
    connection->idle_since = std::chrono::steady_clock::now();
    connection->visit([](auto& s) { s.expires_never(); });
    if (connection->buffer.size() == 0) connection->buffer.shrink_to_fit(); // idle: no buffer
    auto& queue = idle_[connection->key];
    // Oldest first out: a bounded pool per destination.
    if (queue.size() >= max_idle_per_key) queue.pop_front();
    queue.push_back(std::move(connection));
}

std::shared_ptr<H2UpstreamConnection> UpstreamPool::take_h2(const std::string& key) {
    auto it = h2_.find(key);
    if (it == h2_.end()) return nullptr;
    for (auto& connection : it->second)
        if (connection->can_open()) return connection;
    return nullptr;
}

void UpstreamPool::add_h2(std::shared_ptr<H2UpstreamConnection> connection) {
    h2_[connection->key()].push_back(std::move(connection));
}

void UpstreamPool::forget_h2(const H2UpstreamConnection* connection) {
    auto it = h2_.find(connection->key());
    if (it == h2_.end()) return;
    std::erase_if(it->second, [&](const auto& c) { return c.get() == connection; });
    if (it->second.empty()) h2_.erase(it);
}

std::shared_ptr<asio::steady_timer> UpstreamPool::h2_dial_under_way(const std::string& key) const {
    auto it = dialing_h2_.find(key);
    return it == dialing_h2_.end() ? nullptr : it->second;
}

void UpstreamPool::start_h2_dial(const std::string& key, std::shared_ptr<asio::steady_timer> done) {
    dialing_h2_[key] = std::move(done);
}

void UpstreamPool::end_h2_dial(const std::string& key) {
    auto it = dialing_h2_.find(key);
    if (it == dialing_h2_.end()) return;
    it->second->cancel();
    dialing_h2_.erase(it);
}

std::size_t UpstreamPool::size() const {
    std::size_t n = 0;
    for (const auto& [key, queue] : idle_)
        n += queue.size();
    return n;
}

namespace {

// One lookup and what came of it, shared with its completion handler: the
// handler may run after the waiter has given up on it.
struct PendingLookup {
    explicit PendingLookup(const asio::any_io_executor& executor)
        : resolver(executor), wake(executor) {}
    tcp::resolver resolver;
    asio::steady_timer wake;
    std::optional<std::pair<beast::error_code, tcp::resolver::results_type>> result;
};

// async_resolve by `deadline`. getaddrinfo runs on Asio's resolver thread and
// cannot be interrupted (cancel() only stops a lookup not yet started), and
// the resolve operation completes only when it returns: so it is not waited
// for, a timer is, which the lookup's handler cuts short.
asio::awaitable<std::optional<std::pair<beast::error_code, tcp::resolver::results_type>>>
resolve_by(std::string host, std::uint16_t port, Deadline deadline) {
    auto lookup = std::make_shared<PendingLookup>(co_await asio::this_coro::executor);
    lookup->wake.expires_at(deadline);
    lookup->resolver.async_resolve(host, std::to_string(port),
                                   [lookup](beast::error_code ec, tcp::resolver::results_type r) {
                                       lookup->result.emplace(ec, std::move(r));
                                       lookup->wake.cancel();
                                   });
    co_await lookup->wake.async_wait(asio::as_tuple(asio::use_awaitable));
    if (!lookup->result) lookup->resolver.cancel(); // a lookup not started yet never starts
    co_return std::move(lookup->result);
}

} // namespace

asio::awaitable<ResolvedDestination> resolve_checked(ProxyRuntime& ctx, std::string host,
                                                     std::uint16_t port, Deadline deadline) {
    ResolvedDestination out;
    std::vector<asio::ip::address> candidates;
    // Aliases and address classes never change while the proxy runs, so any
    // snapshot of the rules answers alike.
    const auto rules = ctx.rules();
    if (auto alias = rules->policy.alias_for(host)) {
        candidates.push_back(*alias);
    } else if (auto literal = hosts::host_as_address(host)) {
        candidates.push_back(*literal);
    } else {
        auto resolved = co_await resolve_by(host, port, deadline);
        if (!resolved) {
            out.error = ErrorKind::upstream_timeout;
            out.detail = host + " did not resolve in time";
            co_return out;
        }
        auto& [ec, results] = *resolved;
        if (ec) {
            out.error = ErrorKind::dns;
            out.detail = host + " does not resolve";
            co_return out;
        }
        for (const auto& entry : results)
            candidates.push_back(entry.endpoint().address());
    }
    for (const auto& address : candidates) {
        auto decision = rules->policy.check_address(host, address);
        // Even an alias does not make the proxy's own listeners a destination.
        if (ctx.is_own_endpoint({address, port}))
            decision = policy::Decision::refuse(RefusalReason::destination_address,
                                                host + " is the egress proxy itself");
        else if (ctx.is_peer_listener({address, port}))
            decision = policy::Decision::refuse(RefusalReason::destination_address,
                                                host + " is another sandbox's egress proxy");
        if (decision.allowed) {
            out.endpoints.emplace_back(address, port);
        } else if (!out.refusal.refused_by) {
            out.refusal = std::move(decision);
        }
    }
    if (!out.endpoints.empty()) out.refusal = policy::Decision::allow();
    co_return out;
}

namespace {

void prepare_tls(SSL* ssl, const std::string& host) {
    if (hosts::host_as_address(host)) {
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host.c_str());
    } else {
        SSL_set_tlsext_host_name(ssl, host.c_str());
        SSL_set1_host(ssl, host.c_str());
    }
}

} // namespace

namespace {

// A request's connection that is a stream of a shared HTTP/2 connection.
std::unique_ptr<UpstreamConnection>
h2_stream_connection(ProxyRuntime& ctx, const std::string& key,
                     std::shared_ptr<H2UpstreamConnection> shared, bool reused) {
    auto connection = std::make_unique<UpstreamConnection>();
    connection->key = key;
    connection->buffer.max_size(ctx.config.limits().read_buffer_bytes());
    connection->stream.emplace<H2UpstreamStream>(std::move(shared),
                                                 ctx.config.limits().max_header_bytes);
    connection->reused = reused;
    return connection;
}

// Ends this request's dial for the others waiting on it, however it ends.
struct DialGuard {
    UpstreamPool* pool = nullptr;
    std::string key;
    ~DialGuard() {
        if (pool) pool->end_h2_dial(key);
    }
};

// A new connection to one of `endpoints`: TCP, then TLS when asked (the
// origin verified, h2 offered when asked); one that speaks h2 joins the pool.
asio::awaitable<UpstreamResult> connect_new(ProxyRuntime& ctx, UpstreamPool& pool,
                                            const std::string& key, const std::string& host,
                                            std::uint16_t port, bool tls, bool offer_h2,
                                            std::vector<tcp::endpoint> endpoints,
                                            Deadline deadline) {
    UpstreamResult out;
    auto connection = std::make_unique<UpstreamConnection>();
    connection->key = key;
    connection->buffer.max_size(ctx.config.limits().read_buffer_bytes());
    const auto executor = co_await asio::this_coro::executor;
    beast::tcp_stream stream(executor);
    stream.expires_at(deadline);
    auto [cec, connected] =
        co_await stream.async_connect(endpoints, asio::as_tuple(asio::use_awaitable));
    if (cec) {
        out.error = cec == beast::error::timeout ? ErrorKind::upstream_timeout
                                                 : ErrorKind::upstream_connect;
        out.detail =
            "cannot connect to " + host + ":" + std::to_string(port) + ": " + cec.message();
        co_return out;
    }
    stream.socket().set_option(tcp::no_delay(true));
    ctx.metrics.upstream_connects.fetch_add(1, std::memory_order_relaxed);
    if (!tls) {
        connection->stream.emplace<beast::tcp_stream>(std::move(stream));
        out.connection = std::move(connection);
        co_return out;
    }
    // The system store loads while the proxy starts; only a request in its
    // first milliseconds ever waits here, and then for what is left of the load.
    if (!config::wait_for_upstream_trust(*ctx.config.upstream_tls)) {
        static std::once_flag warned;
        std::call_once(warned, [] {
            spdlog::warn("the system's trusted certificates could not be loaded: origins are "
                         "verified against --upstream-ca only");
        });
    }
    auto& secure = connection->stream.emplace<TlsStream>(
        stream.release_socket(), *ctx.config.upstream_tls, std::string_view{}, TlsRole::client);
    prepare_tls(secure.native_handle(), host);
    if (offer_h2) {
        static const unsigned char h2_and_http11[] = {2,   'h', '2', 8,   'h', 't',
                                                      't', 'p', '/', '1', '.', '1'};
        SSL_set_alpn_protos(secure.native_handle(), h2_and_http11, sizeof h2_and_http11);
    }
    secure.expires_at(deadline);
    auto [hec] = co_await secure.async_handshake(asio::as_tuple(asio::use_awaitable));
    if (hec) {
        const long verify = SSL_get_verify_result(secure.native_handle());
        out.error =
            hec == beast::error::timeout ? ErrorKind::upstream_timeout : ErrorKind::upstream_tls;
        out.detail = "TLS with " + host + ":" + std::to_string(port) + " failed: " +
                     (verify != X509_V_OK ? X509_verify_cert_error_string(verify) : hec.message());
        co_return out;
    }
    const unsigned char* alpn = nullptr;
    unsigned int alpn_size = 0;
    SSL_get0_alpn_selected(secure.native_handle(), &alpn, &alpn_size);
    if (std::string_view(reinterpret_cast<const char*>(alpn), alpn_size) == "h2") {
        std::shared_ptr<const UpstreamConnection> holder = std::move(connection);
        auto shared = std::make_shared<H2UpstreamConnection>(
            holder->key, secure, holder,
            [&pool](const H2UpstreamConnection* over) { pool.forget_h2(over); },
            UpstreamPool::max_idle_age, ctx.config.limits());
        if (!shared->launch()) {
            out.error = ErrorKind::upstream_protocol;
            out.detail = "cannot start HTTP/2 with " + host + ":" + std::to_string(port);
            co_return out;
        }
        pool.add_h2(shared);
        out.connection = h2_stream_connection(ctx, key, std::move(shared), false);
        co_return out;
    }
    out.connection = std::move(connection);
    co_return out;
}

} // namespace

asio::awaitable<UpstreamResult> acquire_upstream(ProxyRuntime& ctx, UpstreamPool& pool,
                                                 const std::string& host, std::uint16_t port,
                                                 bool tls,
                                                 const std::vector<tcp::endpoint>* checked,
                                                 bool allow_pooled, bool offer_h2) {
    UpstreamResult out;
    offer_h2 = offer_h2 && tls;
    const auto key = upstream_key(host, port, tls, offer_h2);
    const Deadline deadline =
        std::chrono::steady_clock::now() + ctx.config.limits().upstream_timeout;
    DialGuard dial_guard;
    if (allow_pooled && offer_h2) {
        if (auto pending = pool.h2_dial_under_way(key)) {
            auto [ignored] = co_await pending->async_wait(asio::as_tuple(asio::use_awaitable));
            (void)ignored; // cancelled when that dial ended, or expired at its deadline
        }
        if (auto shared = pool.take_h2(key)) {
            ctx.metrics.upstream_reused.fetch_add(1, std::memory_order_relaxed);
            out.connection = h2_stream_connection(ctx, key, std::move(shared), true);
            co_return out;
        }
        if (!pool.h2_dial_under_way(key)) {
            auto done = std::make_shared<asio::steady_timer>(co_await asio::this_coro::executor);
            done->expires_at(deadline);
            pool.start_h2_dial(key, std::move(done));
            dial_guard.pool = &pool;
            dial_guard.key = key;
        }
    }
    if (allow_pooled) {
        if (auto pooled = pool.take(key)) {
            ctx.metrics.upstream_reused.fetch_add(1, std::memory_order_relaxed);
            out.connection = std::move(pooled);
            co_return out;
        }
    }
    std::vector<tcp::endpoint> endpoints;
    if (checked && !checked->empty()) {
        endpoints = *checked;
    } else {
        auto resolved = co_await resolve_checked(ctx, host, port, deadline);
        if (resolved.error) {
            out.error = resolved.error;
            out.detail = std::move(resolved.detail);
            co_return out;
        }
        if (!resolved.refusal.allowed) {
            out.refusal = std::move(resolved.refusal);
            co_return out;
        }
        endpoints = std::move(resolved.endpoints);
    }
    // The dial guard lives until the new connection is made (or fails).
    co_return co_await connect_new(ctx, pool, key, host, port, tls, offer_h2, std::move(endpoints),
                                   deadline);
}

} // namespace osf::net
