#include "local/agent/sandbox_agent.hpp"

#include "local/agent/exec_helper.hpp"
#include "local/agent/process_tree.hpp"
#include "local/agent/seccomp_filter.hpp"
#include "local/launch/bwrap_command.hpp"
#include "local/launch/cgroup_limits.hpp"
#include "local/launch/sandbox_environment.hpp"
#include "local/protocol/byte_relay.hpp"
#include "local/protocol/exec_protocol.hpp"
#include "local/protocol/start_status.hpp"
#include "local/protocol/unix_socket.hpp"
#include "process/fd.hpp"
#include "process/spawn.hpp"
#include "sandbox/exec_stop.hpp"

#include <algorithm>
#include <boost/asio.hpp>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace osf::local::agent {

namespace {

namespace asio = boost::asio;
using Tcp = asio::ip::tcp;
using Local = asio::local::stream_protocol;

// The agent: the sandbox's PID 1 (bwrap --as-pid-1), one event loop. It
// listens on 127.0.0.1:8080 (HTTP) and 127.0.0.1:1080 (SOCKS5) in the
// sandbox's network namespace and hands both listeners to the proxy, which
// accepts on them itself (were that to fail, it relays each connection to the
// egress socket), and forks one helper per exec request (exec_helper.hpp). As PID 1 it is every
// orphan's parent: a process that ends up its child without being a helper
// got there because its helper died (killed despite the filter, or by the OOM
// killer), so nothing can prove which exec it belongs to, and it is killed.
//
// The agent is also what stops an exec for good. A helper runs as the
// sandbox's user in the sandbox's PID namespace: a command can stop it
// (SIGSTOP by a pidfd, SIGIO on a pipe it owns...). The agent, PID 1 of that
// namespace, cannot be: the kernel drops every signal its own namespace sends
// it that it has no handler for, SIGSTOP and SIGKILL included. So it watches
// each exec's connection: once the CLI asks for a stop (or goes), a helper
// that has not answered within the grace and a margin is killed, and with it,
// as orphans of the agent, everything its command started.
class Agent {
public:
    Agent(int control, int handoff)
        : control_(io_, control), handoff_(handoff), signals_(io_, SIGCHLD) {}

    int run() {
        // The sandbox's process budget, set here inside its own user namespace:
        // the kernel counts RLIMIT_NPROC per user namespace and uid, so this
        // sandbox's processes are counted apart from every other sandbox of the
        // same user (set on bwrap outside, it bounded all of them together).
        rlimit processes{};
        ::getrlimit(RLIMIT_NPROC, &processes);
        processes.rlim_max = std::min(processes.rlim_max, static_cast<rlim_t>(kSandboxPidsMax));
        processes.rlim_cur = processes.rlim_max;
        if (::setrlimit(RLIMIT_NPROC, &processes) != 0) {
            std::cerr << "sandbox-local agent: RLIMIT_NPROC: " << std::strerror(errno) << "\n";
            return 1;
        }
        try {
            // Compiled once: every exec's command loads it as it is.
            filter_ = SeccompFilter(sandbox_syscall_rules()).program();
        } catch (const std::exception& e) {
            std::cerr << "sandbox-local agent: " << e.what() << "\n";
            return 1;
        }
        // HTTP on 8080, SOCKS5 on 1080: both to the same egress socket (the
        // proxy tells them apart by the first byte).
        for (const int port : {kSandboxProxyPort, kSandboxSocksPort}) {
            try {
                listeners_.emplace_back(io_, Tcp::endpoint(asio::ip::make_address("127.0.0.1"),
                                                           static_cast<unsigned short>(port)));
            } catch (const std::exception& e) {
                std::cerr << "sandbox-local agent: 127.0.0.1:" << port << ": " << e.what() << "\n";
                return 1;
            }
        }
        // The proxy accepts on them itself when it can take them: then no
        // process stands between the sandbox's connections and the proxy.
        if (!hand_listeners_to_proxy())
            for (auto& listener : listeners_)
                accept_connection(listener);
        wait_for_children();
        send_with_fds(control_.native_handle(), kAgentReady, {});
        wait_for_request();
        io_.run();
        return status_;
    }

private:
    void accept_connection(Tcp::acceptor& listener) {
        listener.async_accept(
            [this, &listener](boost::system::error_code error, Tcp::socket client) {
                if (error == asio::error::operation_aborted) return;
                if (!error && !relays_.full()) {
                    // Interactive tunnels (ssh, a database's queries) wait on
                    // every small write otherwise.
                    boost::system::error_code ignored;
                    client.set_option(Tcp::no_delay(true), ignored);
                    Local::socket egress(io_);
                    boost::system::error_code connect_error;
                    egress.connect(Local::endpoint(kEgressSocketPath), connect_error);
                    if (!connect_error) relay(std::move(client), std::move(egress), relays_);
                }
                accept_connection(listener); // a refused client sees its connection closed
            });
    }

    // The listeners, in one message on the proxy's handoff channel; true when
    // it went (the agent's copies are then closed: the proxy accepts), false
    // when there is no channel or it failed (the agent relays instead).
    bool hand_listeners_to_proxy() {
        if (handoff_ < 0) return false;
        std::vector<int> fds;
        for (auto& listener : listeners_)
            fds.push_back(listener.native_handle());
        try {
            send_with_fds(handoff_, "l", fds);
        } catch (const std::exception& e) {
            std::cerr << "sandbox-local agent: relaying, the proxy's handoff failed: " << e.what()
                      << "\n";
            return false;
        }
        for (auto& listener : listeners_) {
            boost::system::error_code ignored;
            listener.close(ignored);
        }
        return true;
    }

    void wait_for_request() {
        control_.async_wait(asio::posix::stream_descriptor::wait_read,
                            [this](boost::system::error_code error) {
                                if (error) return stop(1);
                                if (!take_request()) return stop(0);
                                wait_for_request();
                            });
    }

    // One exec request: its message, the connection and the command's three
    // standard streams. False when the supervisor has gone.
    bool take_request() {
        std::string bytes;
        std::vector<Fd> fds;
        try {
            if (!receive_with_fds(control_.native_handle(), bytes, fds)) return false;
        } catch (const std::exception& e) {
            std::cerr << "sandbox-local agent: " << e.what() << "\n";
            return false;
        }
        const auto message = decode_exec_message(bytes);
        if (!message || fds.size() != 4) return true; // closing the descriptors answers
        process::SpawnSpec spec;
        try {
            process::Pipe answered = process::make_pipe();
            spec.fds = {{0, fds[1].get()},
                        {1, fds[2].get()},
                        {2, fds[3].get()},
                        {3, fds[0].get()},
                        {4, answered.write.get()}};
            // Not waited on: a command of the sandbox can stop a helper
            // before its set-up is done (see start_function).
            const pid_t helper = process::start_function(
                spec, [this, &message] { return run_exec_helper(*message, 3, 4, filter_); });
            helpers_.insert(helper);
            watch(helper, fds[0], std::move(answered.read));
        } catch (const std::exception& e) {
            const std::string text = std::string("sandbox-local: ") + e.what() + "\n";
            write_all(fds[3].get(), text.data(), text.size());
            const std::string answer = encode_exit(kCannotRun);
            write_all(fds[0].get(), answer.data(), answer.size());
        }
        return true;
    }

    // One exec in progress: a copy of its connection, the helper's "answered"
    // pipe and the deadline after which a helper that has not answered is killed.
    struct Watch {
        std::unique_ptr<asio::posix::stream_descriptor> connection;
        std::unique_ptr<asio::posix::stream_descriptor> answered;
        std::unique_ptr<asio::steady_timer> deadline;
    };

    void watch(pid_t helper, const Fd& connection, Fd answered) {
        Fd copy(::fcntl(connection.get(), F_DUPFD_CLOEXEC, 0));
        if (!copy) return;
        Watch& w = watches_[helper];
        w.connection = std::make_unique<asio::posix::stream_descriptor>(io_, copy.release());
        w.answered = std::make_unique<asio::posix::stream_descriptor>(io_, answered.release());
        w.deadline = std::make_unique<asio::steady_timer>(io_);
        w.answered->async_wait(asio::posix::stream_descriptor::wait_read,
                               [this, helper](boost::system::error_code error) {
                                   if (error != asio::error::operation_aborted) unwatch(helper);
                               });
        // Readable: the CLI sent its stop byte or closed the connection (the
        // helper reads the byte; the agent only looks, once).
        w.connection->async_wait(
            asio::posix::stream_descriptor::wait_read,
            [this, helper](boost::system::error_code error) {
                const auto found = watches_.find(helper);
                if (error == asio::error::operation_aborted || found == watches_.end()) return;
                found->second.deadline->expires_after(sandbox::kExecTerminateGrace + kStopMargin);
                found->second.deadline->async_wait([this, helper](boost::system::error_code e) {
                    if (!e && watches_.count(helper) != 0) ::kill(helper, SIGKILL);
                });
            });
    }

    void unwatch(pid_t helper) { watches_.erase(helper); }

    void wait_for_children() {
        signals_.async_wait([this](boost::system::error_code error, int) {
            if (error) return;
            reap_and_kill_strays();
            wait_for_children();
        });
    }

    void reap_and_kill_strays() {
        pid_t pid;
        while ((pid = ::waitpid(-1, nullptr, WNOHANG)) > 0) {
            helpers_.erase(pid);
            unwatch(pid); // its copy of the connection closes: the CLI sees the end
        }
        for (const pid_t child : children_of(::getpid()))
            if (!helpers_.count(child)) {
                ::kill(child, SIGKILL);
                kill_descendants(child);
            }
    }

    void stop(int status) {
        status_ = status;
        io_.stop();
    }

    asio::io_context io_;
    asio::posix::stream_descriptor control_;
    int handoff_; // the proxy's handoff channel, or -1
    asio::signal_set signals_;
    std::list<Tcp::acceptor> listeners_; // a list: accept handlers hold references
    RelayCount relays_;
    std::set<pid_t> helpers_;
    std::map<pid_t, Watch> watches_;
    // After the grace, what a helper that is not stopped needs to kill and answer.
    static constexpr std::chrono::seconds kStopMargin{3};
    SeccompProgram filter_;
    int status_ = 0;
};

} // namespace

int run_sandbox_agent(int control_fd, int handoff_fd) {
    ::prctl(PR_SET_DUMPABLE, 0); // the sandbox's own processes cannot read its descriptors
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    ::fcntl(control_fd, F_SETFD, FD_CLOEXEC);
    if (handoff_fd >= 0 && ::fcntl(handoff_fd, F_SETFD, FD_CLOEXEC) != 0)
        handoff_fd = -1; // not open: relay instead
    ::signal(SIGPIPE, SIG_IGN);
    return Agent(control_fd, handoff_fd).run();
}

} // namespace osf::local::agent
