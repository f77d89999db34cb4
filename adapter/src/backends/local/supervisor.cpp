#include "backends/local/supervisor.hpp"

#include "backends/local/bwrap_command.hpp"
#include "backends/local/byte_relay.hpp"
#include "backends/local/cgroup_limits.hpp"
#include "backends/local/child_process.hpp"
#include "backends/local/host_mounts.hpp"
#include "backends/local/local_layout.hpp"
#include "backends/local/local_lifecycle.hpp"
#include "backends/local/proxy_binary.hpp"
#include "backends/local/sandbox_environment.hpp"
#include "backends/local/sandbox_store.hpp"
#include "backends/local/unix_socket.hpp"
#include "backends/local/user_namespaces.hpp"
#include "manifests/secret_plan.hpp"

#include <algorithm>
#include <array>
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
#include <sched.h>
#include <sstream>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace osf::backends::local {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

class StartFailed : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

std::optional<std::string> env_lookup(const std::string& name) {
    const char* value = std::getenv(name.c_str());
    return value ? std::optional<std::string>(value) : std::nullopt;
}

std::string read_file(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

std::string last_line(const std::string& path) {
    std::string text = read_file(path);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
        text.pop_back();
    const auto newline = text.rfind('\n');
    return newline == std::string::npos ? text : text.substr(newline + 1);
}

class Supervisor {
public:
    Supervisor(std::string dir, int status_fd, int lock_fd)
        : paths_(sandbox_paths(fs::path(dir).parent_path().parent_path().string(),
                               fs::path(dir).filename().string())),
          status_(status_fd), lock_(lock_fd) {}

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
        const auto parsed = osf::parse_spec(request_.spec_text);
        if (!parsed.ok()) throw StartFailed("the stored spec is no longer valid");
        request_.spec = *parsed.spec;
        request_.settings = manifests::read_settings(env_lookup);
        request_.secrets =
            manifests::plan_secrets(request_.spec, request_.settings, env_lookup,
                                    [](const std::string& path) { return fs::exists(path); })
                .plan;
        const auto meta = read_meta(paths_.meta);
        if (!meta) throw StartFailed("no " + paths_.meta);
        meta_ = *meta;
        deadline_ = Clock::now() + std::chrono::seconds(request_.settings.start_timeout_seconds);
    }

    void block_signals() {
        sigset_t set;
        sigemptyset(&set);
        for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGCHLD})
            sigaddset(&set, sig);
        ::sigprocmask(SIG_BLOCK, &set, nullptr);
        signals_ = Fd(::signalfd(-1, &set, SFD_CLOEXEC));
        ::signal(SIGPIPE, SIG_IGN);
    }

    void start_proxy() {
        const std::string binary = find_proxy_binary(env_lookup);
        ChildSpec child;
        child.argv = {binary,        "--spec",      paths_.spec,
                      "--listen",    "127.0.0.1:0", "--admin-listen",
                      "127.0.0.1:0", "--state-dir", paths_.proxy_state};
        child.envp = to_envp(proxy_environment(request_, env_lookup));
        child.output_path = paths_.proxy_output;
        // A resumed sandbox's state directory still names the last run's ports.
        const std::string listen_file = paths_.proxy_state + "/listen.json";
        std::error_code error;
        fs::remove(listen_file, error);
        proxy_pid_ = start_child(child);
        while (true) {
            int status = 0;
            if (::waitpid(proxy_pid_, &status, WNOHANG) == proxy_pid_) {
                proxy_pid_ = -1;
                throw StartFailed("the egress proxy exited: " + last_line(paths_.proxy_output));
            }
            const auto listen = nlohmann::json::parse(read_file(listen_file), nullptr, false);
            if (listen.is_object() && listen.contains("proxy")) {
                const std::string address = listen["proxy"].get<std::string>();
                proxy_port_ = std::stoi(address.substr(address.rfind(':') + 1));
                keep_log_key();
                return;
            }
            if (Clock::now() > deadline_)
                throw StartFailed("the egress proxy did not start within " +
                                  std::to_string(request_.settings.start_timeout_seconds) + " s");
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
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
        const std::string temporary = paths_.log_key + ".new";
        {
            std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
            file << pem;
            if (!file.flush()) throw StartFailed("cannot write " + temporary);
        }
        fs::rename(temporary, paths_.log_key);
    }

    void start_sandbox() {
        std::array<int, 2> pair{};
        if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair.data()) != 0)
            throw StartFailed(std::string("socketpair: ") + std::strerror(errno));
        agent_ = Fd(pair[0]);
        Fd agent_end(pair[1]);

        const SandboxMounts mounts =
            read_host_mounts(paths_, request_, meta_.root, agent_end.get());
        if (!mounts.user_namespace && request_.spec.user)
            throw StartFailed("the spec's user needs a user namespace, which the kernel refuses "
                              "here (a chroot?)");
        if (!mounts.user_namespace)
            report("warning: the kernel refuses a user namespace here (a chroot?): the sandbox "
                   "runs as root without capabilities, in its own mount, PID, IPC, UTS and "
                   "network namespaces");

        ChildSpec child;
        child.argv = bwrap_arguments(mounts);
        child.envp = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
        child.output_path = paths_.dir + "/sandbox.log";
        child.keep_fds = {agent_end.get()};
        sandbox_pid_ = start_child(child);
        agent_end = Fd();

        const auto limits = cgroup_values(request_.spec);
        const auto place = make_sandbox_cgroup(id(), limits);
        if (place.directory) {
            cgroup_ = *place.directory;
            if (auto problem = apply_cgroup(cgroup_, limits, sandbox_pid_))
                report("warning: " + *problem + "; cpu, memory and process limits are not applied");
        } else {
            report("warning: cgroup v2 cannot limit this sandbox (" + place.reason +
                   "); cpu, memory and process limits are not applied");
        }

        // The agent says "ready" once it listens on 127.0.0.1:8080.
        while (true) {
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now());
            if (left.count() <= 0)
                throw StartFailed("the sandbox did not start within " +
                                  std::to_string(request_.settings.start_timeout_seconds) + " s");
            pollfd poll_agent{agent_.get(), POLLIN, 0};
            ::poll(&poll_agent, 1, static_cast<int>(std::min<long long>(left.count(), 100)));
            int status = 0;
            if (::waitpid(sandbox_pid_, &status, WNOHANG) == sandbox_pid_) {
                sandbox_pid_ = -1;
                throw StartFailed(describe_bwrap_failure(last_line(paths_.dir + "/sandbox.log")));
            }
            if (poll_agent.revents & POLLIN) {
                std::string bytes;
                std::vector<Fd> fds;
                if (receive_with_fds(agent_.get(), bytes, fds) && bytes == "ready") return;
                throw StartFailed("the sandbox's agent failed: " +
                                  last_line(paths_.dir + "/sandbox.log"));
            }
            if (poll_agent.revents & (POLLHUP | POLLERR))
                throw StartFailed("the sandbox's agent failed: " +
                                  last_line(paths_.dir + "/sandbox.log"));
        }
    }

    void start() {
        take_lock();
        read_request();
        block_signals();
        start_proxy();
        egress_ = listen_unix(paths_.egress_socket);
        control_ = listen_unix(paths_.control);
        ::chmod(paths_.control.c_str(), 0600);
        start_sandbox();
        std::ofstream(paths_.ready) << "";
    }

    // Hands one exec request, its descriptors and the connection to the agent.
    void forward_exec(Fd connection) {
        timeval timeout{5, 0};
        ::setsockopt(connection.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
        std::string bytes;
        std::vector<Fd> fds;
        try {
            if (!receive_with_fds(connection.get(), bytes, fds) || fds.size() != 3) return;
            send_with_fds(agent_.get(), bytes,
                          {connection.get(), fds[0].get(), fds[1].get(), fds[2].get()});
        } catch (const std::exception& e) {
            std::cerr << "exec request: " << e.what() << std::endl;
        }
    }

    // The wait before the expiry, at most a minute so that a change of the
    // machine's clock counts; -1 without an expiry.
    int poll_timeout_ms() const {
        const auto left = time_to_expiry(meta_, std::chrono::system_clock::now());
        if (!left) return -1;
        return static_cast<int>(std::min<long long>(left->count(), 60'000));
    }

    bool expiry_reached() const {
        const auto left = time_to_expiry(meta_, std::chrono::system_clock::now());
        return left && left->count() == 0;
    }

    // `extend` wrote a new expiry and sent SIGHUP.
    void reread_expiry() {
        if (const auto meta = read_meta(paths_.meta)) meta_.expires = meta->expires;
        std::cerr << "expiry now " << meta_.expires << std::endl;
    }

    void serve() {
        while (true) {
            if (expiry_reached()) {
                std::cerr << "stopping: the sandbox expired" << std::endl;
                expired_ = true;
                return;
            }
            std::array<pollfd, 4> polls{{{signals_.get(), POLLIN, 0},
                                         {egress_.get(), POLLIN, 0},
                                         {control_.get(), POLLIN, 0},
                                         {agent_.get(), POLLIN, 0}}};
            if (::poll(polls.data(), polls.size(), poll_timeout_ms()) < 0) {
                if (errno == EINTR) continue;
                return;
            }
            if (polls[0].revents & POLLIN) {
                signalfd_siginfo info{};
                if (::read(signals_.get(), &info, sizeof(info)) == sizeof(info)) {
                    if (info.ssi_signo == SIGHUP) {
                        reread_expiry();
                    } else if (info.ssi_signo != SIGCHLD) {
                        std::cerr << "stopping: signal " << info.ssi_signo << std::endl;
                        return;
                    }
                }
                if (child_ended()) return;
            }
            if (polls[1].revents & POLLIN) {
                Fd client(::accept4(egress_.get(), nullptr, nullptr, SOCK_CLOEXEC));
                if (client) {
                    try {
                        relay_in_background(std::move(client), connect_tcp_loopback(proxy_port_));
                    } catch (const std::exception& e) {
                        std::cerr << e.what() << std::endl;
                    }
                }
            }
            if (polls[2].revents & POLLIN) {
                Fd connection(::accept4(control_.get(), nullptr, nullptr, SOCK_CLOEXEC));
                if (connection) forward_exec(std::move(connection));
            }
            if (polls[3].revents & (POLLHUP | POLLERR | POLLIN)) {
                std::cerr << "stopping: the sandbox's agent went away" << std::endl;
                return;
            }
        }
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
        if (!cgroup_.empty()) ::rmdir(cgroup_.c_str());
    }

    // As on Kubernetes, where the claim and everything it owns are deleted at
    // the expiry: nothing of the sandbox stays (its snapshots do).
    void remove_expired() {
        std::cerr << "removing the expired sandbox" << std::endl;
        if (!meta_.buildah_container.empty()) {
            ChildSpec child;
            child.argv = {"buildah", "rm", meta_.buildah_container};
            // The caller's variables: buildah's storage (CONTAINERS_STORAGE_CONF).
            for (char** variable = environ; *variable != nullptr; ++variable)
                child.envp.emplace_back(*variable);
            const int pid = start_child(child);
            ::waitpid(pid, nullptr, 0);
        }
        try {
            remove_tree(paths_.dir);
        } catch (const std::exception& e) {
            std::cerr << e.what() << std::endl;
        }
    }

    SandboxPaths paths_;
    Fd status_;
    Fd lock_;
    Fd signals_;
    Fd egress_;
    Fd control_;
    Fd agent_;
    manifests::SandboxRequest request_;
    SandboxMeta meta_;
    Clock::time_point deadline_;
    int proxy_pid_ = -1;
    int proxy_port_ = 0;
    int sandbox_pid_ = -1;
    std::string cgroup_;
    bool expired_ = false;
};

} // namespace

int run_supervisor(const std::string& sandbox_dir, int status_fd, int lock_fd) {
    ::fcntl(status_fd, F_SETFD, FD_CLOEXEC);
    return Supervisor(sandbox_dir, status_fd, lock_fd).run();
}

} // namespace osf::backends::local
