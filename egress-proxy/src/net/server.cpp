#include "net/server.hpp"

#include "admin/accept_pause.hpp"
#include "admin/admin_server.hpp"
#include "admin/connection_handoff.hpp"
#include "config/cpu_budget.hpp"
#include "config/policy_change.hpp"
#include "net/client_session.hpp"
#include "net/policy_update.hpp"
#include "net/proxy_runtime.hpp"
#include "net/worker.hpp"
#include "osf/atomic_file.hpp"
#include "osf/host_port.hpp"
#include "osf/proxy_state.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <csignal>
#include <filesystem>
#include <functional>
#include <future>
#include <list>
#include <openssl/rand.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace osf::net {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

// A new random token at each start, readable by the proxy's user only: what
// POST /policy on the admin port needs (admin/admin_server.hpp).
std::string admin_token(const std::string& state_dir) {
    unsigned char bytes[32];
    if (RAND_bytes(bytes, sizeof bytes) != 1)
        throw std::runtime_error("cannot make the admin token: no random bytes");
    static constexpr char hex[] = "0123456789abcdef";
    std::string token;
    for (const unsigned char b : bytes) {
        token += hex[b >> 4];
        token += hex[b & 15];
    }
    osf::write_file_atomically(proxy_state::path_in(state_dir, proxy_state::admin_token),
                               token + "\n", 0600);
    return token;
}

// A TCP address or unix:PATH (validated by load_config); throws
// boost::system::system_error when it cannot listen there.
std::unique_ptr<admin::StreamListener> listen_at(asio::any_io_executor executor,
                                                 const std::string& text) {
    auto parsed = config::parse_listen(text);
    const auto& listen = std::get<config::ListenAddress>(parsed);
    if (listen.inherited_fd >= 0)
        return admin::StreamListener::on_inherited(executor, listen.inherited_fd);
    if (!listen.unix_path.empty())
        return admin::StreamListener::on_unix(executor, listen.unix_path);
    return admin::StreamListener::on_tcp(
        executor, tcp::endpoint(asio::ip::make_address(listen.address), listen.port));
}

} // namespace

struct ProxyServer::Impl {
    const config::ProxyConfig& config;
    std::unique_ptr<ProxyRuntime> ctx;
    // Workers outlive main_io: its pending accept holds a socket of a worker's io_context.
    std::vector<std::unique_ptr<Worker>> workers;
    asio::io_context main_io{1};
    std::unique_ptr<admin::StreamListener> acceptor;
    std::unique_ptr<admin::ConnectionHandoff> handoff;   // --handoff-fd
    std::list<asio::ip::tcp::acceptor> handed_listeners; // what it brought
    std::unique_ptr<admin::AdminServer> admin;
    std::size_t next_worker = 0;

    explicit Impl(const config::ProxyConfig& c) : config(c) {}

    // POST /policy (on main_io): each worker ends, on its own thread, the tunnels
    // and WebSockets `policy` no longer admits; waits for each (a worker that does
    // not answer within 5 s, stopping, is not counted).
    std::size_t end_revoked(const policy::Policy& policy) {
        const auto rules = std::make_shared<const policy::Policy>(policy);
        std::size_t ended = 0;
        for (auto& w : workers) {
            auto done = std::make_shared<std::promise<std::size_t>>();
            auto result = done->get_future();
            asio::post(w->io, [&worker = *w, rules, done] {
                done->set_value(worker.end_revoked(*rules));
            });
            if (result.wait_for(std::chrono::seconds(5)) == std::future_status::ready)
                ended += result.get();
        }
        return ended;
    }

    // Over --max-connections: a 503 in one non-blocking send (the request is not
    // read), then the connection closes. Every refusal is counted in /metrics;
    // the log gets one line a second at most, so a flood cannot grow it.
    std::chrono::steady_clock::time_point last_over_limit_line{};

    template <class Socket> void refuse_over_limit(Socket& socket, const std::string& client) {
        static constexpr std::string_view answer =
            "HTTP/1.1 503 Service Unavailable\r\nServer: egress-proxy\r\n"
            "X-Osf-Refused-By: limit\r\nConnection: close\r\n"
            "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 51\r\n\r\n"
            "egress-proxy: too many connections open; try later\n";
        boost::system::error_code ec;
        socket.non_blocking(true, ec);
        if (!ec) {
            const int fd = socket.native_handle();
            ::send(fd, answer.data(), answer.size(), MSG_NOSIGNAL);
            // What the client has sent already is read and dropped: closing with
            // unread bytes would reset the connection, and the 503 with it.
            char drain[16 * 1024];
            for (int i = 0; i < 4 && ::recv(fd, drain, sizeof drain, MSG_DONTWAIT) > 0; ++i) {
            }
        }
        socket.close(ec);
        const auto now = std::chrono::steady_clock::now();
        if (now - last_over_limit_line < std::chrono::seconds(1)) {
            ctx->metrics.count_refusal(RefusalReason::limit);
            return;
        }
        last_over_limit_line = now;
        log::LogRecord rec;
        rec.time = std::chrono::system_clock::now();
        rec.connection = ctx->next_connection.fetch_add(1);
        rec.client = client;
        rec.outcome = Outcome::refused;
        rec.status = 503;
        rec.refused_by = RefusalReason::limit;
        ctx->write_log(rec); // counts the refusal too
    }

    // The listeners' own addresses (never a destination), and listen.json:
    // where the proxy really listens (ports may be kernel-chosen).
    void announce_listeners() {
        const auto& options = config.options;
        for (const admin::StreamListener* listener :
             {static_cast<const admin::StreamListener*>(acceptor.get()), &admin->listener()})
            if (const auto at = listener->tcp_endpoint()) ctx->own_endpoints.push_back(*at);
        const auto proxy_at = acceptor->address_text();
        const auto admin_at = admin->listener().address_text();
        osf::write_file_atomically(proxy_state::path_in(options.state_dir, proxy_state::listen),
                                   proxy_state::listen_json({proxy_at, admin_at, ::getpid()}));
        spdlog::info(
            "egress-proxy listening on {} (admin {}), CA certificate {}/ca.crt, egress log {}",
            proxy_at, admin_at, options.state_dir, ctx->log->path());
    }

    // SIGTERM or SIGINT: no new connections, idle ones closed, then requests in
    // flight get up to the grace period before main_io stops.
    void start_draining(int signo) {
        const auto grace = config.options.grace;
        spdlog::info("signal {}: draining (grace {} s)", signo, grace.count());
        ctx->draining.store(true);
        acceptor->close();
        if (handoff) handoff->close();
        for (auto& listener : handed_listeners) {
            boost::system::error_code ignored;
            listener.close(ignored);
        }
        close_idle_clients();
        asio::co_spawn(
            main_io,
            [this, grace]() -> asio::awaitable<void> {
                const auto deadline = std::chrono::steady_clock::now() + grace;
                asio::steady_timer timer(main_io);
                while (ctx->metrics.open_connections.load() > 0 &&
                       std::chrono::steady_clock::now() < deadline) {
                    close_idle_clients();
                    timer.expires_after(std::chrono::milliseconds(50));
                    co_await timer.async_wait(asio::use_awaitable);
                }
                admin->stop();
                main_io.stop();
            },
            asio::detached);
    }

    void close_idle_clients() {
        for (auto& w : workers)
            asio::post(w->io, [&w = *w] { w.close_idle_clients(); });
    }

    asio::awaitable<void> accept_loop() {
        for (;;) {
            auto& worker = *workers[next_worker++ % workers.size()];
            auto [ec, socket, client] = co_await acceptor->accept(worker.io);
            if (ec) {
                const auto next = admin::after_accept_error(ec, acceptor->is_open());
                if (next == admin::AcceptNext::stop) co_return;
                spdlog::warn("accept failed: {}", ec.message());
                if (next == admin::AcceptNext::pause) { // out of descriptors: wait, do not spin
                    asio::steady_timer pause(main_io, admin::kAcceptPause);
                    co_await pause.async_wait(asio::use_awaitable);
                }
                continue;
            }
            serve(std::move(socket), worker, client);
        }
    }

    // A connection, accepted here or handed over: served on its worker,
    // unless as many as --max-connections are open.
    void serve(asio::ip::tcp::socket socket, Worker& worker, const std::string& client) {
        if (static_cast<std::size_t>(ctx->metrics.open_connections.load()) >=
            config.limits().max_connections) {
            refuse_over_limit(socket, client);
            return;
        }
        asio::co_spawn(worker.io, run_client_session(*ctx, worker, std::move(socket), client),
                       asio::detached);
    }

    // Sockets handed over (--handoff-fd): a listener is accepted on as the
    // proxy's own, a connection served. Their clients are the sandbox's, as
    // on the egress socket ("unix").
    asio::awaitable<void> handoff_loop() {
        for (;;) {
            const auto handed = co_await handoff->receive();
            if (handed.empty()) co_return;
            for (const int fd : handed) {
                boost::system::error_code error;
                if (admin::handed_kind(fd) == admin::Handed::listener) {
                    auto& listener =
                        handed_listeners.emplace_back(admin::as_acceptor(main_io, fd, error));
                    if (!error)
                        asio::co_spawn(main_io, handed_accept_loop(listener), asio::detached);
                    continue;
                }
                auto& worker = *workers[next_worker++ % workers.size()];
                auto socket = admin::as_client_socket(worker.io, fd, error);
                if (!error) serve(std::move(socket), worker, "unix");
            }
        }
    }

    asio::awaitable<void> handed_accept_loop(asio::ip::tcp::acceptor& listener) {
        for (;;) {
            auto& worker = *workers[next_worker++ % workers.size()];
            auto [ec, socket] =
                co_await listener.async_accept(worker.io, asio::as_tuple(asio::use_awaitable));
            if (ec) {
                const auto next = admin::after_accept_error(ec, listener.is_open());
                if (next == admin::AcceptNext::stop) co_return;
                if (next == admin::AcceptNext::pause) {
                    asio::steady_timer pause(main_io, admin::kAcceptPause);
                    co_await pause.async_wait(asio::use_awaitable);
                }
                continue;
            }
            serve(std::move(socket), worker, "unix");
        }
    }
};

ProxyServer::ProxyServer(const config::ProxyConfig& config)
    : impl_(std::make_unique<Impl>(config)) {
    const auto& options = config.options;
    std::filesystem::create_directories(options.state_dir);

    ca::CaOptions ca_options;
    ca_options.permitted_names = config.rules->policy.permitted_names();
    auto authority = ca::CertificateAuthority::create(ca_options);
    auto log = std::make_unique<log::EgressLogWriter>(
        proxy_state::path_in(options.state_dir, proxy_state::egress_log), options.log_stdout,
        options.checkpoint_lines);
    if (log->truncated_bytes())
        spdlog::warn("egress log: cut {} byte(s) of a line an earlier run did not finish",
                     log->truncated_bytes());
    // Next to ca.crt: the key the log's checkpoints verify against.
    osf::write_file_atomically(proxy_state::path_in(options.state_dir, proxy_state::log_key),
                               log->public_key_pem());
    impl_->ctx = std::make_unique<ProxyRuntime>(config, std::move(authority),
                                                ca_options.permitted_names, std::move(log));
    osf::write_file_atomically(proxy_state::path_in(options.state_dir, proxy_state::ca_certificate),
                               impl_->ctx->issuers->bundle_pem());

    const unsigned threads = options.threads ? options.threads : usable_cpus();
    for (unsigned i = 0; i < threads; ++i)
        impl_->workers.push_back(std::make_unique<Worker>());

    try {
        impl_->acceptor = listen_at(impl_->main_io.get_executor(), options.listen);
    } catch (const boost::system::system_error& e) {
        throw std::runtime_error("cannot listen on " + options.listen + ": " + e.code().message());
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error("cannot listen on " + options.listen + ": " + e.what());
    }
    if (options.handoff_fd >= 0) {
        try {
            impl_->handoff =
                std::make_unique<admin::ConnectionHandoff>(impl_->main_io, options.handoff_fd);
        } catch (const std::exception& e) {
            throw std::runtime_error("cannot use --handoff-fd " +
                                     std::to_string(options.handoff_fd) + ": " + e.what());
        }
    }
    try {
        auto* ctx = impl_->ctx.get();
        impl_->admin = std::make_unique<admin::AdminServer>(
            listen_at(impl_->main_io.get_executor(), options.admin_listen),
            admin::AdminHandlers{[ctx] { return !ctx->draining.load(); },
                                 [ctx] {
                                     return admin::render_prometheus(ctx->metrics,
                                                                     {ctx->issuers->hits(),
                                                                      ctx->issuers->misses(),
                                                                      ctx->issuers->cached()});
                                 },
                                 [ctx, this](std::string_view body) {
                                     return update_policy(*ctx, body, [this](const auto& policy) {
                                         return impl_->end_revoked(policy);
                                     });
                                 },
                                 admin_token(options.state_dir), config::max_policy_request_bytes});
    } catch (const boost::system::system_error& e) {
        throw std::runtime_error("cannot listen on " + options.admin_listen + ": " +
                                 e.code().message());
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error("cannot listen on " + options.admin_listen + ": " + e.what());
    }
}

ProxyServer::~ProxyServer() = default;

int ProxyServer::run() {
    auto& im = *impl_;
    const auto& options = im.config.options;
    // Keep workers running while idle.
    std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards;
    for (auto& w : im.workers) {
        guards.emplace_back(w->io.get_executor());
        w->thread = std::thread([&io = w->io] { io.run(); });
    }
    // However run() ends (a throw included), the workers are stopped and
    // joined: a joinable std::thread destroyed would end the process in
    // std::terminate instead of a one-line error and exit 1.
    const auto stop_workers = [&] {
        for (auto& w : im.workers)
            w->io.stop();
        guards.clear();
        for (auto& w : im.workers)
            if (w->thread.joinable()) w->thread.join();
    };
    struct StopOnExit {
        const decltype(stop_workers)& stop;
        ~StopOnExit() { stop(); }
    } stop_on_exit{stop_workers};
    im.admin->start();
    asio::co_spawn(im.main_io, im.accept_loop(), asio::detached);
    if (im.handoff) asio::co_spawn(im.main_io, im.handoff_loop(), asio::detached);

    // SIGUSR1 (handled before listen.json names the pid): sign the log now, for
    // `egress-proxy log checkpoint` before a copy of the log is taken.
    asio::signal_set checkpoint_signal(im.main_io, SIGUSR1);
    std::function<void()> await_checkpoint_signal = [&] {
        checkpoint_signal.async_wait([&](const boost::system::error_code& ec, int) {
            if (ec) return;
            im.ctx->write_folded(true);
            im.ctx->log->checkpoint();
            await_checkpoint_signal();
        });
    };
    await_checkpoint_signal();
    // Every checkpoint_interval while lines are unsigned: a crash leaves at most
    // that much of the log unsigned.
    asio::steady_timer checkpoint_timer(im.main_io);
    std::function<void()> schedule_checkpoint = [&] {
        if (options.checkpoint_interval.count() <= 0) return;
        checkpoint_timer.expires_after(options.checkpoint_interval);
        checkpoint_timer.async_wait([&](const boost::system::error_code& ec) {
            if (ec) return;
            im.ctx->write_folded(false);
            im.ctx->log->checkpoint();
            schedule_checkpoint();
        });
    };
    schedule_checkpoint();
    // Folded lines of a window that ended go out within seconds, traffic or not.
    asio::steady_timer fold_timer(im.main_io);
    std::function<void()> schedule_fold = [&] {
        if (!options.fold_refusals) return;
        fold_timer.expires_after(std::chrono::seconds(5));
        fold_timer.async_wait([&](const boost::system::error_code& ec) {
            if (ec) return;
            im.ctx->write_folded(false);
            schedule_fold();
        });
    };
    schedule_fold();

    im.announce_listeners();

    // A write to a peer that has gone must be an error on that connection, never
    // the end of the process (sockets use MSG_NOSIGNAL too; this covers any other write).
    std::signal(SIGPIPE, SIG_IGN);
    asio::signal_set signals(im.main_io, SIGTERM, SIGINT);
    signals.async_wait([&](const boost::system::error_code& ec, int signo) {
        if (!ec) im.start_draining(signo);
    });
    im.main_io.run();

    const auto left = im.ctx->metrics.open_connections.load();
    stop_workers();
    im.ctx->write_folded(true);
    im.ctx->log->checkpoint(true); // the run's last line: the log ends here
    im.ctx->log->sync();
    if (left > 0) spdlog::warn("grace period over: {} connection(s) cut", left);
    spdlog::info("egress-proxy stopped");
    return 0;
}

} // namespace osf::net
