#include "local/supervisor/proxy_start.hpp"

#include "local/host/bound_file.hpp"
#include "local/launch/sandbox_environment.hpp"
#include "osf/proxy_state.hpp"

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace osf::local::supervisor {

namespace fs = std::filesystem;

namespace {

// The key the proxy published, copied out of its state directory before
// anything reaches the proxy, as sandbox-kubernetes copies it into the CA
// ConfigMap: verification trusts this copy, not what the proxy says later.
// A resumed sandbox's new proxy replaces it (its log continues the chain).
void keep_log_key(const SandboxPaths& paths) {
    const std::string pem = read_file(paths.published_log_key());
    if (pem.find("-----BEGIN PUBLIC KEY-----") == std::string::npos)
        throw StartFailed("the egress proxy published no egress log key in " +
                          paths.published_log_key());
    write_file(paths.log_key, pem, 0644);
    // The CA certificate, readable by the sandbox's host id, in the file the
    // sandbox (started meanwhile) has bound.
    try {
        rewrite_bound_file(paths.sandbox_ca, read_file(paths.ca()));
    } catch (const std::runtime_error& e) {
        throw StartFailed(e.what());
    }
}

} // namespace

HandoffChannel handoff_channel() {
    auto [proxy_end, agent_end] = seqpacket_pair();
    return {std::move(proxy_end), std::move(agent_end)};
}

Fd start_proxy(SupervisedSandbox& sandbox, const Fd& egress_listener, const Fd& handoff) {
    std::vector<Fd> keep_open;
    process::SpawnSpec spec = output_to(sandbox.paths.proxy_output, keep_open);
    // The sandbox's egress socket, as the proxy's listener (proxy_argv's
    // fd:N): the sandbox's connections reach the proxy with no relay between.
    spec.fds.push_back({kProxyListenerFd, egress_listener.get()});
    spec.fds.push_back({kProxyHandoffFd, handoff.get()});
    spec.argv = sandbox.plan.proxy_argv;
    spec.env = to_envp(sandbox.plan.proxy_environment);
    spec.die_with_parent = true;
    // A resumed sandbox's state directory still names the last run's sockets.
    const std::string listen_file = sandbox.paths.listen_file();
    std::error_code error;
    fs::remove(listen_file, error);
    // The proxy renames listen.json into place once it listens: a watch on its
    // state directory, set before the proxy starts, wakes wait_for_proxy then,
    // and SIGCHLD (on the signal descriptor) if it exits first. Without a
    // watch, a poll every 10 ms.
    Fd listened(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
    if (listened && ::inotify_add_watch(listened.get(), sandbox.paths.proxy_state.c_str(),
                                        IN_MOVED_TO | IN_CLOSE_WRITE) < 0)
        listened = Fd();
    try {
        sandbox.proxy_pid = process::spawn(spec);
    } catch (const std::exception& e) {
        throw StartFailed(std::string("the egress proxy: ") + e.what());
    }
    return listened;
}

void wait_for_proxy(SupervisedSandbox& sandbox, Fd listened) {
    const std::string listen_file = sandbox.paths.listen_file();
    while (true) {
        check_stop_signal(sandbox);
        int status = 0;
        if (::waitpid(sandbox.proxy_pid, &status, WNOHANG) == sandbox.proxy_pid) {
            sandbox.proxy_pid = -1;
            throw StartFailed("the egress proxy exited: " + last_line(sandbox.paths.proxy_output));
        }
        if (const auto listen = osf::proxy_state::parse_listen(read_file(listen_file))) {
            // Only where it was told: a Unix socket in this sandbox's directory.
            if (listen->proxy != "unix:" + sandbox.paths.egress_socket ||
                listen->admin != "unix:" + sandbox.paths.admin_socket)
                throw StartFailed("the egress proxy listens elsewhere than told (" + listen->proxy +
                                  ", " + listen->admin + ")");
            keep_log_key(sandbox.paths);
            return;
        }
        if (Clock::now() > sandbox.deadline)
            throw StartFailed("the egress proxy did not start within " +
                              std::to_string(sandbox.request.settings.start_timeout_seconds) +
                              " s");
        if (!listened) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
            continue;
        }
        // The timeout only bounds a wake that never comes; each wake empties
        // the watch's queue, then the checks above run again.
        std::array<pollfd, 2> polls{pollfd{listened.get(), POLLIN, 0},
                                    pollfd{sandbox.signals.get(), POLLIN, 0}};
        ::poll(polls.data(), polls.size(), 100);
        std::array<char, 4096> events{};
        while (::read(listened.get(), events.data(), events.size()) > 0) {
        }
    }
}

} // namespace osf::local::supervisor
