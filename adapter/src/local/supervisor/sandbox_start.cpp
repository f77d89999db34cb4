#include "local/supervisor/sandbox_start.hpp"

#include "local/host/bound_file.hpp"
#include "local/host/cgroup_placement.hpp"
#include "local/host/mount_staging.hpp"
#include "local/host/user_namespaces.hpp"
#include "local/launch/bwrap_command.hpp"
#include "local/launch/cgroup_limits.hpp"
#include "local/protocol/start_status.hpp"
#include "local/protocol/unix_socket.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace osf::local::supervisor {

namespace {

// What bwrap and the agent may say while the sandbox starts (their errors);
// after it started, nothing they write reaches a file of the host.
constexpr std::size_t kSandboxLogLimit = 64 * 1024;

void drain(const Fd& output, const Fd& log) {
    process::set_nonblocking(output.get(), true);
    std::array<char, 4096> buffer{};
    ssize_t got;
    while (log && (got = ::read(output.get(), buffer.data(), buffer.size())) > 0)
        write_all(log.get(), buffer.data(), static_cast<std::size_t>(got));
}

} // namespace

void wait_for_agent(SupervisedSandbox& sandbox, Fd output) {
    Fd log(
        ::open(sandbox.paths.sandbox_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    std::size_t logged = 0;
    bool output_open = true;
    auto sandbox_said = [&] { return last_line(sandbox.paths.sandbox_log); };
    while (true) {
        check_stop_signal(sandbox);
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(sandbox.deadline - Clock::now());
        if (left.count() <= 0)
            throw StartFailed("the sandbox did not start within " +
                              std::to_string(sandbox.request.settings.start_timeout_seconds) +
                              " s");
        std::array<pollfd, 2> polls{
            {{sandbox.agent.get(), POLLIN, 0}, {output_open ? output.get() : -1, POLLIN, 0}}};
        ::poll(polls.data(), polls.size(),
               static_cast<int>(std::min<long long>(left.count(), 100)));
        if (polls[1].revents != 0) {
            std::array<char, 4096> buffer{};
            const ssize_t got = ::read(output.get(), buffer.data(), buffer.size());
            if (got <= 0) {
                output_open = false;
            } else if (logged < kSandboxLogLimit && log) {
                const auto size =
                    std::min<std::size_t>(static_cast<std::size_t>(got), kSandboxLogLimit - logged);
                write_all(log.get(), buffer.data(), size);
                logged += size;
            }
        }
        int status = 0;
        if (::waitpid(sandbox.sandbox_pid, &status, WNOHANG) == sandbox.sandbox_pid) {
            sandbox.sandbox_pid = -1;
            drain(output, log);
            throw StartFailed(describe_bwrap_failure(sandbox_said()));
        }
        if (polls[0].revents & POLLIN) {
            std::string bytes;
            std::vector<Fd> fds;
            if (receive_with_fds(sandbox.agent.get(), bytes, fds) && bytes == kAgentReady) return;
            drain(output, log);
            throw StartFailed("the sandbox's agent failed: " + sandbox_said());
        }
        if (polls[0].revents & (POLLHUP | POLLERR)) {
            drain(output, log);
            throw StartFailed("the sandbox's agent failed: " + sandbox_said());
        }
    }
}

SandboxSockets listen_for_sandbox(const SupervisedSandbox& sandbox) {
    SandboxSockets sockets;
    sockets.egress = listen_unix(sandbox.paths.egress_socket);
    sockets.control = listen_unix(sandbox.paths.control);
    ::chmod(sandbox.paths.control.c_str(), 0600);
    ::chmod(sandbox.paths.egress_socket.c_str(), 0600);
    if (sandbox.own_host_id() && ::chown(sandbox.paths.egress_socket.c_str(), sandbox.meta.host_id,
                                         sandbox.meta.host_id) != 0)
        throw StartFailed("cannot give " + sandbox.paths.egress_socket +
                          " to the sandbox's host id: " + std::strerror(errno));
    return sockets;
}

void place_in_cgroups(SupervisedSandbox& sandbox,
                      const std::function<void(const std::string&)>& warn) {
    // The spec's limits, and the defaults for those it leaves out.
    const osf::Spec limited = with_default_limits(sandbox.request.spec, host_size());
    sandbox.placement = place_sandbox_cgroups(sandbox.id(), limited, true);
    // For gc, should this supervisor be killed before it removes them.
    std::string listed;
    for (const auto& dir : sandbox.placement.directories)
        listed += dir + "\n";
    write_file(sandbox.paths.cgroups, listed, 0600);
    if (const auto missing = unenforced_limits(sandbox.request.spec, sandbox.placement);
        !missing.empty()) {
        std::string names;
        for (const auto& name : missing)
            names += (names.empty() ? "" : ", ") + name;
        throw StartFailed("the spec's " + names +
                          " limit cannot be applied: " + sandbox.placement.reason);
    }
    // A default that cannot hold is logged, not refused: the spec asked for none.
    for (const auto& name : unenforced_limits(limited, sandbox.placement))
        std::cerr << "no default " << name << " limit here (" << sandbox.placement.reason << ")"
                  << std::endl;
    if (std::find(sandbox.placement.controllers.begin(), sandbox.placement.controllers.end(),
                  "pids") == sandbox.placement.controllers.end())
        warn("no pids cgroup here (" + sandbox.placement.reason +
             "); the sandbox's processes are bounded by RLIMIT_NPROC in its own user "
             "namespace instead");
}

Fd spawn_sandbox(SupervisedSandbox& sandbox, const Fd& handoff) {
    try {
        make_bound_file(sandbox.paths.sandbox_ca, 0644); // filled in once the proxy listens
    } catch (const std::runtime_error& e) {
        throw StartFailed(e.what());
    }
    auto [supervisor_end, agent_end] = seqpacket_pair();
    sandbox.agent = std::move(supervisor_end);

    const std::vector<StagedBind>& binds = sandbox.plan.staged;

    process::Pipe output = process::make_pipe();
    Fd null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    process::SpawnSpec spec;
    spec.argv = sandbox.plan.sandbox_argv;
    spec.env = std::vector<std::string>{
        "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
    spec.fds = {{0, null.get()},
                {1, output.write.get()},
                {2, output.write.get()},
                {kAgentControlFd, agent_end.get()},
                {kAgentHandoffFd, handoff.get()}};
    spec.die_with_parent = true;
    spec.new_session_keyring = true;
    spec.join_cgroups = sandbox.placement.procs_files;
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
    if (sandbox.own_host_id()) {
        spec.credentials = process::Credentials{sandbox.meta.host_id, sandbox.meta.host_id};
        spec.prepare = [&binds] { return stage_binds(binds); };
    }
    try {
        sandbox.sandbox_pid = process::spawn(spec);
    } catch (const std::exception& e) {
        throw StartFailed(std::string("bwrap: ") + e.what());
    }
    agent_end = Fd();
    output.write = Fd();
    return std::move(output.read);
}

} // namespace osf::local::supervisor
