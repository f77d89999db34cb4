#include "process/spawn.hpp"

#include "process/fd.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <grp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace osf::process {

namespace {

// What the child reports when a step fails: the step and its errno.
enum class Step : int {
    descriptors,
    session,
    cgroup,
    limit,
    prepare,
    credentials,
    parent_death,
    keyring,
    cwd,
    before_exec,
    exec
};

constexpr const char* step_name(Step step) {
    switch (step) {
    case Step::descriptors:
        return "setting up its descriptors";
    case Step::session:
        return "starting its session";
    case Step::cgroup:
        return "joining its cgroup";
    case Step::limit:
        return "setting its limits";
    case Step::prepare:
        return "preparing it";
    case Step::credentials:
        return "switching its user";
    case Step::parent_death:
        return "tying it to its parent";
    case Step::keyring:
        return "giving it a keyring";
    case Step::cwd:
        return "changing its directory";
    case Step::before_exec:
        return "setting it up";
    case Step::exec:
        return "exec";
    }
    return "starting it";
}

struct Failure {
    Step step;
    int error;
};

// `report` is -1 for a child nobody waits on (start_function).
[[noreturn]] void fail_in_child(int report, Step step, int error) {
    const Failure failure{step, error};
    if (report >= 0) {
        [[maybe_unused]] auto ignored = ::write(report, &failure, sizeof(failure));
    }
    ::_exit(127);
}

// Closes every descriptor from `first` on but `keep` (-1: none kept).
void close_from(int first, int keep) {
    // close_range(2) needs Linux 5.9; older kernels get the loop.
    if (keep < 0 && ::syscall(SYS_close_range, first, ~0U, 0) == 0) return;
    if (keep >= 0 && ::syscall(SYS_close_range, first, keep - 1, 0) == 0 &&
        ::syscall(SYS_close_range, keep + 1, ~0U, 0) == 0)
        return;
    rlimit limit{};
    const int last = ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
                         ? static_cast<int>(std::min<rlim_t>(limit.rlim_cur, 1 << 20))
                         : 65536;
    for (int fd = first; fd < last; ++fd)
        if (fd != keep) ::close(fd);
}

// Everything in the child before exec or `body`. `report` is the write end of
// the parent's status pipe (close-on-exec), or -1; returns its new number.
int set_up_child(const SpawnSpec& spec, int report, pid_t parent) {
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig = 1; sig < NSIG; ++sig)
        if (sig != SIGKILL && sig != SIGSTOP) ::signal(sig, SIG_DFL);

    // Descriptors: every source copied above every number in play, then into
    // place, then everything else closed.
    int high = report;
    for (const auto& d : spec.fds)
        high = std::max({high, d.child, d.parent});
    int top_child = 2;
    for (const auto& d : spec.fds)
        top_child = std::max(top_child, d.child);
    std::array<int, 64> copies{};
    if (spec.fds.size() > copies.size()) fail_in_child(report, Step::descriptors, EMFILE);
    for (std::size_t i = 0; i < spec.fds.size(); ++i) {
        copies[i] = ::fcntl(spec.fds[i].parent, F_DUPFD, high + 1);
        if (copies[i] < 0) fail_in_child(report, Step::descriptors, errno);
        high = std::max(high, copies[i]);
    }
    if (report >= 0) {
        const int moved_report = ::fcntl(report, F_DUPFD_CLOEXEC, high + 1);
        if (moved_report < 0) fail_in_child(report, Step::descriptors, errno);
        report = moved_report;
    }
    bool given[3] = {false, false, false};
    for (std::size_t i = 0; i < spec.fds.size(); ++i) {
        if (::dup2(copies[i], spec.fds[i].child) < 0)
            fail_in_child(report, Step::descriptors, errno);
        if (spec.fds[i].child <= 2) given[spec.fds[i].child] = true;
    }
    close_from(top_child + 1, report);
    // Numbers between 3 and top_child not named in `fds` are closed too.
    for (int fd = 3; fd <= top_child; ++fd) {
        const bool named = std::any_of(spec.fds.begin(), spec.fds.end(),
                                       [fd](const Descriptor& d) { return d.child == fd; });
        if (!named) ::close(fd);
    }

    for (int fd = 0; fd <= 2; ++fd) {
        if (given[fd]) continue;
        const int null = ::open("/dev/null", O_RDWR);
        if (null < 0) fail_in_child(report, Step::descriptors, errno);
        if (null != fd) {
            ::dup2(null, fd);
            ::close(null);
        }
    }
    if (spec.new_session && ::setsid() < 0) fail_in_child(report, Step::session, errno);
    if (spec.new_process_group && ::setpgid(0, 0) != 0) fail_in_child(report, Step::session, errno);
    for (const auto& procs : spec.join_cgroups) {
        const int fd = ::open(procs.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0 || ::write(fd, "0\n", 2) != 2) fail_in_child(report, Step::cgroup, errno);
        ::close(fd);
    }
    for (const auto& limit : spec.limits) {
        const rlimit value{limit.soft, limit.hard};
        if (::setrlimit(limit.resource, &value) != 0) fail_in_child(report, Step::limit, errno);
    }
    if (spec.prepare)
        if (const int error = spec.prepare(); error != 0)
            fail_in_child(report, Step::prepare, error);
    if (spec.credentials) {
        const auto& c = *spec.credentials;
        if (::setgroups(0, nullptr) != 0 || ::setresgid(c.gid, c.gid, c.gid) != 0 ||
            ::setresuid(c.uid, c.uid, c.uid) != 0)
            fail_in_child(report, Step::credentials, errno);
    }
    // After the credentials: changing them clears the parent-death signal.
    if (spec.die_with_parent) {
        if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
            fail_in_child(report, Step::parent_death, errno);
        if (::getppid() != parent) fail_in_child(report, Step::parent_death, ESRCH);
    }
    constexpr long kJoinSessionKeyring = 1; // KEYCTL_JOIN_SESSION_KEYRING, NULL: a new one
    if (spec.new_session_keyring && ::syscall(SYS_keyctl, kJoinSessionKeyring, nullptr) < 0)
        fail_in_child(report, Step::keyring, errno);
    if (!spec.cwd.empty() && ::chdir(spec.cwd.c_str()) != 0)
        fail_in_child(report, Step::cwd, errno);
    if (spec.before_exec)
        if (const int error = spec.before_exec(); error != 0)
            fail_in_child(report, Step::before_exec, error);
    return report;
}

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
    std::vector<char*> pointers;
    pointers.reserve(strings.size() + 1);
    for (const auto& s : strings)
        pointers.push_back(const_cast<char*>(s.c_str()));
    pointers.push_back(nullptr);
    return pointers;
}

std::string path_of(const SpawnSpec& spec) {
    std::string path_list = "/usr/local/bin:/usr/bin:/bin";
    if (spec.env) {
        for (const auto& variable : *spec.env)
            if (variable.starts_with("PATH=")) path_list = variable.substr(5);
    } else if (const char* path = ::getenv("PATH")) {
        path_list = path;
    }
    return find_in_path(spec.argv.at(0), path_list);
}

// Waits for the child's report: nothing (the pipe closed at exec, or before
// `body`) is success.
void await_start(pid_t pid, Fd report, const std::string& what) {
    Failure failure{};
    ssize_t got;
    while ((got = ::read(report.get(), &failure, sizeof(failure))) < 0 && errno == EINTR) {
    }
    if (got == 0) return;
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    if (got != sizeof(failure)) throw SpawnError("cannot start " + what);
    throw SpawnError("cannot start " + what + ": " + step_name(failure.step) + ": " +
                         std::strerror(failure.error),
                     failure.error);
}

enum class Await { report, nothing };

template <typename Run>
pid_t fork_and(const SpawnSpec& spec, const std::string& what, Await await, Run run) {
    Pipe report;
    if (await == Await::report) report = make_pipe();
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        const int error = errno;
        throw SpawnError("cannot start " + what + ": fork: " + std::strerror(error), error);
    }
    if (pid == 0) {
        report.read = Fd(); // closed in the child only
        const int fd = set_up_child(spec, report.write ? report.write.release() : -1, parent);
        run(fd);
    }
    if (await == Await::nothing) return pid;
    report.write = Fd();
    await_start(pid, std::move(report.read), what);
    return pid;
}

} // namespace

std::string find_in_path(const std::string& name, const std::string& path_list) {
    if (name.find('/') != std::string::npos) return name;
    std::size_t start = 0;
    while (start <= path_list.size()) {
        const auto colon = path_list.find(':', start);
        const std::string dir =
            path_list.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
        if (!dir.empty()) {
            const std::string candidate = dir + "/" + name;
            if (::access(candidate.c_str(), X_OK) == 0) return candidate;
        }
        if (colon == std::string::npos) break;
        start = colon + 1;
    }
    return "";
}

pid_t spawn(const SpawnSpec& spec) {
    const std::string program = path_of(spec);
    if (program.empty()) throw SpawnError("cannot run " + spec.argv.at(0) + ": not found", ENOENT);
    const auto argv = c_strings(spec.argv);
    std::vector<std::string> own_env;
    if (!spec.env)
        for (char** variable = environ; *variable != nullptr; ++variable)
            own_env.emplace_back(*variable);
    const auto envp = c_strings(spec.env ? *spec.env : own_env);
    return fork_and(spec, spec.argv[0], Await::report, [&](int report) {
        ::execve(program.c_str(), argv.data(), envp.data());
        fail_in_child(report, Step::exec, errno);
    });
}

pid_t spawn_function(const SpawnSpec& spec, const std::function<int()>& body) {
    return fork_and(spec, "a helper process", Await::report, [&](int report) {
        ::close(report);
        ::_exit(body());
    });
}

pid_t start_function(const SpawnSpec& spec, const std::function<int()>& body) {
    return fork_and(spec, "a helper process", Await::nothing, [&](int) { ::_exit(body()); });
}

} // namespace osf::process
