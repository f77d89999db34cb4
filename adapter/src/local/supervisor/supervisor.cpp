#include "local/supervisor/supervisor.hpp"

#include "local/host/cgroup_placement.hpp"
#include "local/host/host_environment.hpp"
#include "local/host/host_mounts.hpp"
#include "local/host/host_program.hpp"
#include "local/host/mount_staging.hpp"
#include "local/host/package_cache_dir.hpp"
#include "local/host/proxy_binary.hpp"
#include "local/host/user_namespaces.hpp"
#include "local/host/workspace_volume.hpp"
#include "local/launch/bwrap_command.hpp"
#include "local/launch/cgroup_limits.hpp"
#include "local/launch/launch_plan.hpp"
#include "local/launch/sandbox_environment.hpp"
#include "local/protocol/byte_relay.hpp"
#include "local/protocol/unix_socket.hpp"
#include "local/state/local_layout.hpp"
#include "local/state/local_lifecycle.hpp"
#include "local/state/sandbox_store.hpp"
#include "osf/atomic_file.hpp"
#include "osf/process_env.hpp"
#include "osf/proxy_state.hpp"
#include "osf/whole_file.hpp"
#include "process/spawn.hpp"
#include "sandbox/secret_plan.hpp"

#include <algorithm>
#include <array>
#include <boost/asio.hpp>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <sstream>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace osf::local::supervisor {

namespace fs = std::filesystem;
namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;
using Local = asio::local::stream_protocol;

namespace {

class StartFailed : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// What bwrap and the agent may say while the sandbox starts (their errors);
// after it started, nothing they write reaches a file of the host.
constexpr std::size_t kSandboxLogLimit = 64 * 1024;

std::string read_file(const std::string& path) {
    return osf::read_whole_file(path).value_or("");
}

std::string last_line(const std::string& path) {
    std::string text = read_file(path);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
        text.pop_back();
    const auto newline = text.rfind('\n');
    return newline == std::string::npos ? text : text.substr(newline + 1);
}

void write_file(const std::string& path, const std::string& text, mode_t mode) {
    try {
        osf::write_file_atomically(path, text, mode);
    } catch (const std::runtime_error& e) {
        throw StartFailed(e.what());
    }
}

class Supervisor {
public:
    Supervisor(std::string dir, int status_fd, int lock_fd)
        : root_(fs::path(dir).parent_path().parent_path().string()),
          paths_(sandbox_paths(root_, fs::path(dir).filename().string())), status_(status_fd),
          lock_(lock_fd), signal_stream_(io_), egress_(io_), control_(io_), agent_stream_(io_),
          expiry_timer_(io_) {}

    int run() {
        try {
            start();
        } catch (const std::exception& e) {
            report(std::string("error: ") + e.what());
            status_ = Fd();
            stop();
            return 1;
        }
        report("ready");
        status_ = Fd();
        serve();
        stop();
        if (expired_) remove_expired();
        return 0;
    }

private:
    void report(const std::string& line) {
        std::cerr << line << std::endl;
        if (status_) write_all(status_.get(), (line + "\n").data(), line.size() + 1);
    }

    void take_lock() {
        // Already held (create took it); make sure no child inherits it.
        if (::fcntl(lock_.get(), F_SETFD, FD_CLOEXEC) != 0 ||
            ::flock(lock_.get(), LOCK_EX | LOCK_NB) != 0)
            throw StartFailed("sandbox " + id() + " is not locked for this supervisor");
        std::ofstream(paths_.pid) << ::getpid() << "\n";
    }

    std::string id() const { return fs::path(paths_.dir).filename().string(); }

    void read_request() {
        request_.id = id();
        request_.spec_text = read_file(paths_.spec);
        const auto parsed = osf::parse_running_spec(request_.spec_text);
        if (!parsed.ok()) throw StartFailed("the stored spec is no longer valid");
        request_.spec = *parsed.spec;
        request_.settings = sandbox::read_settings(osf::process_getenv);
        request_.secrets =
            sandbox::plan_secrets(request_.spec, request_.settings, osf::process_getenv,
                                  [](const std::string& path) { return fs::exists(path); })
                .plan;
        const auto meta = read_meta(paths_.meta);
        if (!meta) throw StartFailed("no " + paths_.meta);
        meta_ = *meta;
        deadline_ = Clock::now() + std::chrono::seconds(request_.settings.start_timeout_seconds);
    }

    // Two descriptors per relayed connection, kMaxRelayedConnections of them.
    static void raise_descriptor_limit() {
        rlimit limit{};
        if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
        const rlim_t wanted = 2 * kMaxRelayedConnections + 256;
        if (limit.rlim_cur >= wanted) return;
        limit.rlim_cur = std::min(limit.rlim_max, wanted);
        ::setrlimit(RLIMIT_NOFILE, &limit);
    }

    void block_signals() {
        sigset_t set;
        sigemptyset(&set);
        for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGCHLD})
            sigaddset(&set, sig);
        ::sigprocmask(SIG_BLOCK, &set, nullptr);
        signals_ = Fd(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
        ::signal(SIGPIPE, SIG_IGN);
    }

    // A SIGTERM or SIGINT while the sandbox starts: create gave up.
    void check_stop_signal() {
        signalfd_siginfo info{};
        while (::read(signals_.get(), &info, sizeof(info)) == sizeof(info))
            if (info.ssi_signo == SIGTERM || info.ssi_signo == SIGINT)
                throw StartFailed("stopped by signal " + std::to_string(info.ssi_signo));
    }

    process::SpawnSpec output_to(const std::string& path) const {
        process::SpawnSpec spec;
        Fd null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
        Fd out(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
        if (!null || !out) throw StartFailed("cannot open " + path + ": " + std::strerror(errno));
        spec.fds = {{0, null.get()}, {1, out.get()}, {2, out.get()}};
        keep_open_.push_back(std::move(null));
        keep_open_.push_back(std::move(out));
        return spec;
    }

    // The same plan `create --dry-run` prints (launch_plan.hpp), from this
    // host's directories as they are now.
    void plan_launch() {
        const std::string cache = package_cache_dir(root_, paths_, request_.spec);
        const sandbox::EnvLookup caller = osf::process_getenv;
        plan_ = launch_plan({request_, paths_, root_, find_proxy_binary(osf::process_getenv),
                             caller, read_host_mounts(paths_, request_, meta_.root, cache),
                             own_host_id(), host_size()});
    }

    void start_proxy() {
        process::SpawnSpec spec = output_to(paths_.proxy_output);
        spec.argv = plan_.proxy_argv;
        spec.env = to_envp(plan_.proxy_environment);
        spec.die_with_parent = true;
        // A resumed sandbox's state directory still names the last run's sockets.
        const std::string listen_file = paths_.listen_file();
        std::error_code error;
        fs::remove(listen_file, error);
        // The proxy renames listen.json into place once it listens: a watch on its
        // state directory, set before the proxy starts, wakes wait_for_proxy then,
        // and SIGCHLD (on the signal descriptor) if it exits first. Without a
        // watch, a poll every 10 ms.
        proxy_listened_ = Fd(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
        if (proxy_listened_ &&
            ::inotify_add_watch(proxy_listened_.get(), paths_.proxy_state.c_str(),
                                IN_MOVED_TO | IN_CLOSE_WRITE) < 0)
            proxy_listened_ = Fd();
        try {
            proxy_pid_ = process::spawn(spec);
        } catch (const std::exception& e) {
            throw StartFailed(std::string("the egress proxy: ") + e.what());
        }
        keep_open_.clear();
    }

    void wait_for_proxy() {
        const std::string listen_file = paths_.listen_file();
        const Fd listened = std::move(proxy_listened_);
        while (true) {
            check_stop_signal();
            int status = 0;
            if (::waitpid(proxy_pid_, &status, WNOHANG) == proxy_pid_) {
                proxy_pid_ = -1;
                throw StartFailed("the egress proxy exited: " + last_line(paths_.proxy_output));
            }
            if (const auto listen = osf::proxy_state::parse_listen(read_file(listen_file))) {
                // Only where it was told: a Unix socket in this sandbox's directory.
                if (listen->proxy != "unix:" + paths_.proxy_socket ||
                    listen->admin != "unix:" + paths_.admin_socket)
                    throw StartFailed("the egress proxy listens elsewhere than told (" +
                                      listen->proxy + ", " + listen->admin + ")");
                keep_log_key();
                return;
            }
            if (Clock::now() > deadline_)
                throw StartFailed("the egress proxy did not start within " +
                                  std::to_string(request_.settings.start_timeout_seconds) + " s");
            if (!listened) {
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
                continue;
            }
            // The timeout only bounds a wake that never comes; each wake empties
            // the watch's queue, then the checks above run again.
            std::array<pollfd, 2> polls{pollfd{listened.get(), POLLIN, 0},
                                        pollfd{signals_.get(), POLLIN, 0}};
            ::poll(polls.data(), polls.size(), 100);
            std::array<char, 4096> events{};
            while (::read(listened.get(), events.data(), events.size()) > 0) {
            }
        }
    }

    // The key the proxy published, copied out of its state directory before
    // anything reaches the proxy, as sandbox-kubernetes copies it into the CA
    // ConfigMap: verification trusts this copy, not what the proxy says later.
    // A resumed sandbox's new proxy replaces it (its log continues the chain).
    void keep_log_key() {
        const std::string pem = read_file(paths_.published_log_key());
        if (pem.find("-----BEGIN PUBLIC KEY-----") == std::string::npos)
            throw StartFailed("the egress proxy published no egress log key in " +
                              paths_.published_log_key());
        write_file(paths_.log_key, pem, 0644);
        // The CA certificate, readable by the sandbox's host id.
        write_file(paths_.sandbox_ca, read_file(paths_.ca()), 0644);
    }

    bool own_host_id() const { return meta_.host_id != 0; }

    void listen() {
        egress_fd_ = listen_unix(paths_.egress_socket);
        control_fd_ = listen_unix(paths_.control);
        ::chmod(paths_.control.c_str(), 0600);
        ::chmod(paths_.egress_socket.c_str(), 0600);
        if (own_host_id() &&
            ::chown(paths_.egress_socket.c_str(), meta_.host_id, meta_.host_id) != 0)
            throw StartFailed("cannot give " + paths_.egress_socket +
                              " to the sandbox's host id: " + std::strerror(errno));
    }

    void place_in_cgroups() {
        // The spec's limits, and the defaults for those it leaves out.
        const osf::Spec limited = with_default_limits(request_.spec, host_size());
        placement_ = place_sandbox_cgroups(id(), limited, true);
        // For gc, should this supervisor be killed before it removes them.
        std::string listed;
        for (const auto& dir : placement_.directories)
            listed += dir + "\n";
        write_file(paths_.cgroups, listed, 0600);
        if (const auto missing = unenforced_limits(request_.spec, placement_); !missing.empty()) {
            std::string names;
            for (const auto& name : missing)
                names += (names.empty() ? "" : ", ") + name;
            throw StartFailed("the spec's " + names +
                              " limit cannot be applied: " + placement_.reason);
        }
        // A default that cannot hold is logged, not refused: the spec asked for none.
        for (const auto& name : unenforced_limits(limited, placement_))
            std::cerr << "no default " << name << " limit here (" << placement_.reason << ")"
                      << std::endl;
        if (std::find(placement_.controllers.begin(), placement_.controllers.end(), "pids") ==
            placement_.controllers.end())
            report("warning: no pids cgroup here (" + placement_.reason +
                   "); the sandbox's processes are bounded by RLIMIT_NPROC in its own user "
                   "namespace instead");
    }

    void start_sandbox() {
        std::array<int, 2> pair{};
        if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair.data()) != 0)
            throw StartFailed(std::string("socketpair: ") + std::strerror(errno));
        agent_ = Fd(pair[0]);
        Fd agent_end(pair[1]);

        const std::vector<StagedBind>& binds = plan_.staged;

        process::Pipe output = process::make_pipe();
        Fd null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
        process::SpawnSpec spec;
        spec.argv = plan_.sandbox_argv;
        spec.env = std::vector<std::string>{
            "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
        spec.fds = {{0, null.get()},
                    {1, output.write.get()},
                    {2, output.write.get()},
                    {kAgentControlFd, agent_end.get()}};
        spec.die_with_parent = true;
        spec.new_session_keyring = true;
        spec.join_cgroups = placement_.procs_files;
        // No core dumps: the host's core_pattern may pipe them to a program that
        // runs on the host, with what the crashing process chose to hold.
        spec.limits = {{RLIMIT_CORE, 0, 0}};
        // RLIMIT_NPROC is not set here: set before bwrap makes the sandbox's
        // user namespace, it would bound the count of all this user's
        // processes, every sandbox's together; the agent sets it inside
        // (sandbox_agent.cpp). No lowered OOM score either: a score set with
        // privilege is also the lowest its descendants may set themselves, so
        // commands could go below the host's own processes. Commands run at
        // 1000 (exec_helper.cpp): the kernel's first choice in the sandbox.
        if (own_host_id()) {
            spec.credentials = process::Credentials{meta_.host_id, meta_.host_id};
            spec.prepare = [&binds] { return stage_binds(binds); };
        }
        try {
            sandbox_pid_ = process::spawn(spec);
        } catch (const std::exception& e) {
            throw StartFailed(std::string("bwrap: ") + e.what());
        }
        agent_end = Fd();
        output.write = Fd();
        wait_until_ready(std::move(output.read));
    }

    // The agent says "ready" once it listens on 127.0.0.1:8080. Until then
    // bwrap's and the agent's output goes to sandbox.log (bounded); after,
    // its pipe is closed.
    void wait_until_ready(Fd output) {
        Fd log(::open(paths_.sandbox_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
        std::size_t logged = 0;
        bool output_open = true;
        auto sandbox_said = [&] { return last_line(paths_.sandbox_log); };
        while (true) {
            check_stop_signal();
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now());
            if (left.count() <= 0)
                throw StartFailed("the sandbox did not start within " +
                                  std::to_string(request_.settings.start_timeout_seconds) + " s");
            std::array<pollfd, 2> polls{
                {{agent_.get(), POLLIN, 0}, {output_open ? output.get() : -1, POLLIN, 0}}};
            ::poll(polls.data(), polls.size(),
                   static_cast<int>(std::min<long long>(left.count(), 100)));
            if (polls[1].revents != 0) {
                std::array<char, 4096> buffer{};
                const ssize_t got = ::read(output.get(), buffer.data(), buffer.size());
                if (got <= 0) {
                    output_open = false;
                } else if (logged < kSandboxLogLimit && log) {
                    const auto size = std::min<std::size_t>(static_cast<std::size_t>(got),
                                                            kSandboxLogLimit - logged);
                    write_all(log.get(), buffer.data(), size);
                    logged += size;
                }
            }
            int status = 0;
            if (::waitpid(sandbox_pid_, &status, WNOHANG) == sandbox_pid_) {
                sandbox_pid_ = -1;
                drain(output, log);
                throw StartFailed(describe_bwrap_failure(sandbox_said()));
            }
            if (polls[0].revents & POLLIN) {
                std::string bytes;
                std::vector<Fd> fds;
                if (receive_with_fds(agent_.get(), bytes, fds) && bytes == "ready") return;
                drain(output, log);
                throw StartFailed("the sandbox's agent failed: " + sandbox_said());
            }
            if (polls[0].revents & (POLLHUP | POLLERR)) {
                drain(output, log);
                throw StartFailed("the sandbox's agent failed: " + sandbox_said());
            }
        }
    }

    static void drain(const Fd& output, const Fd& log) {
        process::set_nonblocking(output.get(), true);
        std::array<char, 4096> buffer{};
        ssize_t got;
        while (log && (got = ::read(output.get(), buffer.data(), buffer.size())) > 0)
            write_all(log.get(), buffer.data(), static_cast<std::size_t>(got));
    }

    void start() {
        take_lock();
        read_request();
        block_signals();
        raise_descriptor_limit();
        if (meta_.workspace_bytes > 0) mount_workspace_volume(paths_);
        plan_launch();
        write_file(paths_.ssh_config, plan_.ssh_config, 0644);
        start_proxy();
        // While the proxy starts: neither needs it, and the sandbox needs both.
        listen();
        place_in_cgroups();
        wait_for_proxy();
        start_sandbox();
        std::ofstream(paths_.ready) << "";
    }

    // ---- serving: one event loop ------------------------------------------

    void serve() {
        signal_stream_.assign(::dup(signals_.get()));
        egress_.assign(Local(), egress_fd_.release());
        control_.assign(Local(), control_fd_.release());
        agent_stream_.assign(::dup(agent_.get()));
        wait_for_signal();
        accept_egress();
        accept_control();
        watch_agent();
        arm_expiry();
        io_.run();
    }

    void finish() { io_.stop(); }

    void wait_for_signal() {
        signal_stream_.async_wait(
            asio::posix::stream_descriptor::wait_read, [this](boost::system::error_code error) {
                if (error) return finish();
                signalfd_siginfo info{};
                while (::read(signals_.get(), &info, sizeof(info)) == sizeof(info)) {
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

    void accept_egress() {
        egress_.async_accept([this](boost::system::error_code error, Local::socket client) {
            if (error == asio::error::operation_aborted) return;
            if (!error && !relays_.full()) {
                Local::socket proxy(io_);
                boost::system::error_code connect_error;
                proxy.connect(Local::endpoint(paths_.proxy_socket), connect_error);
                if (!connect_error)
                    relay(std::move(client), std::move(proxy), relays_);
                else
                    std::cerr << "egress proxy: " << connect_error.message() << std::endl;
            }
            accept_egress();
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
                    agent_.get(), bytes,
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
        const auto left = time_to_expiry(meta_, std::chrono::system_clock::now());
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
        if (const auto meta = read_meta(paths_.meta)) meta_.expires = meta->expires;
        std::cerr << "expiry now " << meta_.expires << std::endl;
        expiry_timer_.cancel();
        arm_expiry();
    }

    // Reaps children; true when the proxy or the sandbox has ended.
    bool child_ended() {
        bool ended = false;
        int status = 0;
        pid_t pid;
        while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
            if (pid == proxy_pid_) {
                std::cerr << "stopping: the egress proxy exited" << std::endl;
                proxy_pid_ = -1;
                ended = true;
            } else if (pid == sandbox_pid_) {
                std::cerr << "stopping: the sandbox exited" << std::endl;
                sandbox_pid_ = -1;
                ended = true;
            }
        }
        return ended;
    }

    void stop() {
        std::error_code error;
        fs::remove(paths_.ready, error);
        if (sandbox_pid_ > 0) {
            ::kill(sandbox_pid_, SIGKILL); // bwrap's PID namespace ends with it
            ::waitpid(sandbox_pid_, nullptr, 0);
            sandbox_pid_ = -1;
        }
        if (proxy_pid_ > 0) {
            ::kill(proxy_pid_, SIGTERM); // it syncs its log
            const auto limit = Clock::now() + std::chrono::seconds(5);
            while (::waitpid(proxy_pid_, nullptr, WNOHANG) == 0) {
                if (Clock::now() > limit) {
                    ::kill(proxy_pid_, SIGKILL);
                    ::waitpid(proxy_pid_, nullptr, 0);
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
            proxy_pid_ = -1;
        }
        fs::remove(paths_.egress_socket, error);
        fs::remove(paths_.control, error);
        fs::remove(paths_.proxy_socket, error);
        fs::remove(paths_.admin_socket, error);
        remove_sandbox_cgroups(placement_.directories);
    }

    // As on Kubernetes, where the claim and everything it owns are deleted at
    // the expiry: nothing of the sandbox stays (its snapshots do).
    void remove_expired() {
        std::cerr << "removing the expired sandbox" << std::endl;
        if (!meta_.buildah_container.empty()) {
            process::SpawnSpec spec = output_to(paths_.log);
            spec.argv = {"buildah", "rm", meta_.buildah_container};
            // buildah's storage (CONTAINERS_STORAGE_CONF...), never the secrets.
            spec.env = host_program_environment("buildah", caller_environment());
            try {
                ::waitpid(process::spawn(spec), nullptr, 0);
            } catch (const std::exception& e) {
                std::cerr << e.what() << std::endl;
            }
        }
        try {
            unmount_workspace_volume(paths_);
            remove_tree(paths_.dir);
        } catch (const std::exception& e) {
            std::cerr << e.what() << std::endl;
        }
    }

    std::string root_;
    SandboxPaths paths_;
    Fd status_;
    Fd lock_;
    Fd signals_;
    Fd egress_fd_;
    Fd control_fd_;
    Fd agent_;
    mutable std::vector<Fd> keep_open_;
    sandbox::SandboxRequest request_;
    SandboxMeta meta_;
    LaunchPlan plan_;
    CgroupPlacement placement_;
    Clock::time_point deadline_;
    int proxy_pid_ = -1;
    int sandbox_pid_ = -1;
    bool expired_ = false;

    asio::io_context io_;
    asio::posix::stream_descriptor signal_stream_;
    Fd proxy_listened_; // the watch start_proxy sets for wait_for_proxy
    Local::acceptor egress_;
    Local::acceptor control_;
    asio::posix::stream_descriptor agent_stream_;
    asio::steady_timer expiry_timer_;
    RelayCount relays_;
};

} // namespace

int run_supervisor(const std::string& sandbox_dir, int status_fd, int lock_fd) {
    ::fcntl(status_fd, F_SETFD, FD_CLOEXEC);
    return Supervisor(sandbox_dir, status_fd, lock_fd).run();
}

} // namespace osf::local::supervisor
