#include "local/supervisor/serving.hpp"

#include "local/protocol/unix_socket.hpp"
#include "local/state/local_lifecycle.hpp"

#include <boost/asio.hpp>
#include <csignal>
#include <iostream>
#include <memory>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

namespace osf::local::supervisor {

namespace asio = boost::asio;
using Local = asio::local::stream_protocol;

namespace {

class SandboxServer {
public:
    SandboxServer(SupervisedSandbox& sandbox, SandboxSockets sockets)
        : sandbox_(sandbox), sockets_(std::move(sockets)), signal_stream_(io_), control_(io_),
          agent_stream_(io_), expiry_timer_(io_) {}

    bool serve() {
        signal_stream_.assign(::dup(sandbox_.signals.get()));
        control_.assign(Local(), sockets_.control.release());
        agent_stream_.assign(::dup(sandbox_.agent.get()));
        wait_for_signal();
        accept_control();
        watch_agent();
        arm_expiry();
        io_.run();
        return expired_;
    }

private:
    void finish() { io_.stop(); }

    void wait_for_signal() {
        signal_stream_.async_wait(
            asio::posix::stream_descriptor::wait_read, [this](boost::system::error_code error) {
                if (error) return finish();
                signalfd_siginfo info{};
                while (::read(sandbox_.signals.get(), &info, sizeof(info)) == sizeof(info)) {
                    if (info.ssi_signo == SIGHUP) {
                        reread_expiry();
                    } else if (info.ssi_signo != SIGCHLD) {
                        std::cerr << "stopping: signal " << info.ssi_signo << std::endl;
                        return finish();
                    }
                }
                if (child_ended()) return finish();
                wait_for_signal();
            });
    }

    void accept_control() {
        control_.async_accept([this](boost::system::error_code error, Local::socket connection) {
            if (error == asio::error::operation_aborted) return;
            if (!error) forward_exec(std::make_shared<Local::socket>(std::move(connection)));
            accept_control();
        });
    }

    // Hands one exec request, its descriptors and the connection to the agent.
    void forward_exec(std::shared_ptr<Local::socket> connection) {
        auto timer = std::make_shared<asio::steady_timer>(io_, std::chrono::seconds(5));
        timer->async_wait([connection](boost::system::error_code error) {
            if (!error) connection->close();
        });
        connection->async_wait(Local::socket::wait_read, [this, connection,
                                                          timer](boost::system::error_code error) {
            timer->cancel();
            if (error) return;
            std::string bytes;
            std::vector<Fd> fds;
            try {
                if (!receive_with_fds(connection->native_handle(), bytes, fds) || fds.size() != 3)
                    return;
                send_with_fds(
                    sandbox_.agent.get(), bytes,
                    {connection->native_handle(), fds[0].get(), fds[1].get(), fds[2].get()});
            } catch (const std::exception& e) {
                std::cerr << "exec request: " << e.what() << std::endl;
            }
        });
    }

    void watch_agent() {
        agent_stream_.async_wait(
            asio::posix::stream_descriptor::wait_read, [this](boost::system::error_code error) {
                if (error == asio::error::operation_aborted) return;
                std::cerr << "stopping: the sandbox's agent went away" << std::endl;
                finish();
            });
    }

    // The wait before the expiry, at most a minute so that a change of the
    // machine's clock counts.
    void arm_expiry() {
        const auto left = time_to_expiry(sandbox_.meta, std::chrono::system_clock::now());
        if (!left) return;
        if (left->count() == 0) {
            std::cerr << "stopping: the sandbox expired" << std::endl;
            expired_ = true;
            return finish();
        }
        expiry_timer_.expires_after(
            std::min<std::chrono::milliseconds>(*left, std::chrono::minutes(1)));
        expiry_timer_.async_wait([this](boost::system::error_code error) {
            if (!error) arm_expiry();
        });
    }

    // `extend` wrote a new expiry and sent SIGHUP.
    void reread_expiry() {
        if (const auto meta = read_meta(sandbox_.paths.meta)) sandbox_.meta.expires = meta->expires;
        std::cerr << "expiry now " << sandbox_.meta.expires << std::endl;
        expiry_timer_.cancel();
        arm_expiry();
    }

    // Reaps children; true when the proxy or the sandbox has ended.
    bool child_ended() {
        bool ended = false;
        int status = 0;
        pid_t pid;
        while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
            if (pid == sandbox_.proxy_pid) {
                std::cerr << "stopping: the egress proxy exited" << std::endl;
                sandbox_.proxy_pid = -1;
                ended = true;
            } else if (pid == sandbox_.sandbox_pid) {
                std::cerr << "stopping: the sandbox exited" << std::endl;
                sandbox_.sandbox_pid = -1;
                ended = true;
            }
        }
        return ended;
    }

    SupervisedSandbox& sandbox_;
    SandboxSockets sockets_;
    bool expired_ = false;

    asio::io_context io_;
    asio::posix::stream_descriptor signal_stream_;
    Local::acceptor control_;
    asio::posix::stream_descriptor agent_stream_;
    asio::steady_timer expiry_timer_;
};

} // namespace

bool serve_sandbox(SupervisedSandbox& sandbox, SandboxSockets sockets) {
    return SandboxServer(sandbox, std::move(sockets)).serve();
}

} // namespace osf::local::supervisor
