#include "local/supervisor/supervisor.hpp"

#include "local/host/cgroup_placement.hpp"
#include "local/host/host_environment.hpp"
#include "local/host/host_mounts.hpp"
#include "local/host/host_program.hpp"
#include "local/host/package_cache_dir.hpp"
#include "local/host/proxy_binary.hpp"
#include "local/host/workspace_volume.hpp"
#include "local/launch/launch_plan.hpp"
#include "local/protocol/byte_relay.hpp"
#include "local/protocol/start_status.hpp"
#include "local/protocol/unix_socket.hpp"
#include "local/supervisor/proxy_start.hpp"
#include "local/supervisor/sandbox_start.hpp"
#include "local/supervisor/serving.hpp"
#include "local/supervisor/supervised_sandbox.hpp"
#include "osf/process_env.hpp"
#include "sandbox/secret_plan.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace osf::local::supervisor {

namespace fs = std::filesystem;

namespace {

// Starts the sandbox (its proxy part, then its sandbox part), says so on the
// status pipe, serves it, and ends it.
class Supervisor {
public:
    Supervisor(const std::string& dir, int status_fd, int lock_fd)
        : status_(status_fd), lock_(lock_fd) {
        sandbox_.root = fs::path(dir).parent_path().parent_path().string();
        sandbox_.paths = sandbox_paths(sandbox_.root, fs::path(dir).filename().string());
    }

    int run() {
        try {
            start();
        } catch (const std::exception& e) {
            report(status_line(StartStatus::Error, e.what()));
            status_ = Fd();
            stop();
            return 1;
        }
        report(status_line(StartStatus::Ready));
        status_ = Fd();
        const bool expired = serve_sandbox(sandbox_, std::move(sockets_));
        stop();
        if (expired) remove_expired();
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
            throw StartFailed("sandbox " + sandbox_.id() + " is not locked for this supervisor");
        std::ofstream(sandbox_.paths.pid) << ::getpid() << "\n";
    }

    void read_request() {
        sandbox_.request.id = sandbox_.id();
        sandbox_.request.spec_text = read_file(sandbox_.paths.spec);
        const auto parsed = osf::parse_running_spec(sandbox_.request.spec_text);
        if (!parsed.ok()) throw StartFailed("the stored spec is no longer valid");
        sandbox_.request.spec = *parsed.spec;
        sandbox_.request.settings = sandbox::read_settings(osf::process_getenv);
        sandbox_.request.secrets =
            sandbox::plan_secrets(sandbox_.request.spec, sandbox_.request.settings,
                                  osf::process_getenv,
                                  [](const std::string& path) { return fs::exists(path); })
                .plan;
        const auto meta = read_meta(sandbox_.paths.meta);
        if (!meta) throw StartFailed("no " + sandbox_.paths.meta);
        sandbox_.meta = *meta;
        sandbox_.deadline =
            Clock::now() + std::chrono::seconds(sandbox_.request.settings.start_timeout_seconds);
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
        sandbox_.signals = Fd(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
        ::signal(SIGPIPE, SIG_IGN);
    }

    // The same plan `create --dry-run` prints (launch_plan.hpp), from this
    // host's directories as they are now.
    void plan_launch() {
        const std::string cache =
            package_cache_dir(sandbox_.root, sandbox_.paths, sandbox_.request.spec);
        const sandbox::EnvLookup caller = osf::process_getenv;
        sandbox_.plan = launch_plan(
            {sandbox_.request, sandbox_.paths, sandbox_.root,
             find_proxy_binary(osf::process_getenv), caller,
             read_host_mounts(sandbox_.paths, sandbox_.request, sandbox_.meta.root, cache),
             sandbox_.own_host_id(), host_size()});
    }

    void start() {
        take_lock();
        read_request();
        block_signals();
        raise_descriptor_limit();
        if (sandbox_.meta.workspace_bytes > 0) mount_workspace_volume(sandbox_.paths);
        plan_launch();
        write_file(sandbox_.paths.ssh_config, sandbox_.plan.ssh_config, 0644);
        // The proxy and the sandbox start side by side: the sandbox's sockets
        // (the proxy listens on its egress socket), the proxy (its spawn
        // returns at once; the sandbox's only once bwrap runs, after joining
        // cgroups and staging), then the cgroups, bwrap and the agent. The
        // sandbox runs nothing but the agent until create hears it is ready,
        // after both; the proxy's start fills in the CA file it binds.
        sockets_ = listen_for_sandbox(sandbox_);
        HandoffChannel handoff = handoff_channel();
        Fd proxy_listened = start_proxy(sandbox_, sockets_.egress, handoff.proxy_end);
        sockets_.egress = Fd(); // the proxy's now
        handoff.proxy_end = Fd();
        place_in_cgroups(sandbox_, [this](const std::string& warning) {
            report(status_line(StartStatus::Warning, warning));
        });
        Fd sandbox_output = spawn_sandbox(sandbox_, handoff.agent_end);
        handoff.agent_end = Fd();
        wait_for_proxy(sandbox_, std::move(proxy_listened));
        wait_for_agent(sandbox_, std::move(sandbox_output));
        std::ofstream(sandbox_.paths.ready) << "";
    }

    void stop() {
        std::error_code error;
        fs::remove(sandbox_.paths.ready, error);
        if (sandbox_.sandbox_pid > 0) {
            ::kill(sandbox_.sandbox_pid, SIGKILL); // bwrap's PID namespace ends with it
            ::waitpid(sandbox_.sandbox_pid, nullptr, 0);
            sandbox_.sandbox_pid = -1;
        }
        if (sandbox_.proxy_pid > 0) {
            ::kill(sandbox_.proxy_pid, SIGTERM); // it syncs its log
            const auto limit = Clock::now() + std::chrono::seconds(5);
            while (::waitpid(sandbox_.proxy_pid, nullptr, WNOHANG) == 0) {
                if (Clock::now() > limit) {
                    ::kill(sandbox_.proxy_pid, SIGKILL);
                    ::waitpid(sandbox_.proxy_pid, nullptr, 0);
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
            sandbox_.proxy_pid = -1;
        }
        fs::remove(sandbox_.paths.egress_socket, error);
        fs::remove(sandbox_.paths.control, error);
        fs::remove(sandbox_.paths.proxy_socket, error);
        fs::remove(sandbox_.paths.admin_socket, error);
        remove_sandbox_cgroups(sandbox_.placement.directories);
    }

    // As on Kubernetes, where the claim and everything it owns are deleted at
    // the expiry: nothing of the sandbox stays (its snapshots do).
    void remove_expired() {
        std::cerr << "removing the expired sandbox" << std::endl;
        if (!sandbox_.meta.buildah_container.empty()) {
            std::vector<Fd> keep_open;
            process::SpawnSpec spec = output_to(sandbox_.paths.log, keep_open);
            spec.argv = {"buildah", "rm", sandbox_.meta.buildah_container};
            // buildah's storage (CONTAINERS_STORAGE_CONF...), never the secrets.
            spec.env = host_program_environment("buildah", caller_environment());
            try {
                ::waitpid(process::spawn(spec), nullptr, 0);
            } catch (const std::exception& e) {
                std::cerr << e.what() << std::endl;
            }
        }
        try {
            unmount_workspace_volume(sandbox_.paths);
            remove_tree(sandbox_.paths.dir);
        } catch (const std::exception& e) {
            std::cerr << e.what() << std::endl;
        }
    }

    Fd status_;
    Fd lock_;
    SupervisedSandbox sandbox_;
    SandboxSockets sockets_;
};

} // namespace

int run_supervisor(const std::string& sandbox_dir, int status_fd, int lock_fd) {
    ::fcntl(status_fd, F_SETFD, FD_CLOEXEC);
    return Supervisor(sandbox_dir, status_fd, lock_fd).run();
}

} // namespace osf::local::supervisor
