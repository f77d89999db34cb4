#include "local/agent/exec_helper.hpp"

#include "local/agent/process_tree.hpp"
#include "local/agent/seccomp_filter.hpp"
#include "process/fd.hpp"
#include "process/spawn.hpp"
#include "process/wait.hpp"
#include "sandbox/exec_stop.hpp"
#include "sandbox/sandbox_paths.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <string>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace osf::local::agent {

namespace {

using Clock = std::chrono::steady_clock;

// What a command may hold at once; it may raise its soft limit up to the hard one.
constexpr rlim_t kOpenFilesSoft = 1024;
constexpr rlim_t kOpenFilesHard = 65536;

void say(int fd, const std::string& text) {
    process::write_all(fd, text.data(), text.size());
}

std::vector<std::string> command_environment(const ExecMessage& message) {
    std::vector<std::string> env;
    for (char** variable = environ; *variable != nullptr; ++variable)
        if (!message.terminal || !std::string_view(*variable).starts_with("TERM="))
            env.emplace_back(*variable);
    if (message.terminal && !message.term.empty()) env.push_back("TERM=" + message.term);
    return env;
}

class Exec {
public:
    Exec(const ExecMessage& message, int connection, int answered, const SeccompProgram& filter)
        : message_(message), connection_(connection), answered_fd_(answered), filter_(filter),
          self_(::getpid()) {}

    int run() {
        const char* path = ::getenv("PATH");
        const std::string program =
            process::find_in_path(message_.command[0], path ? path : "/usr/bin:/bin");
        const int problem = program.empty()                        ? ENOENT
                            : ::access(program.c_str(), X_OK) != 0 ? errno
                                                                   : 0;
        if (problem != 0) {
            say(2, "sandbox-local: cannot run " + message_.command[0] + ": " +
                       (program.empty() ? "not found" : std::strerror(problem)) + "\n");
            answer(problem == ENOENT ? kNotFound : kCannotRun);
            return 0;
        }
        if (!start(program)) return 0;
        drop_stdio();
        return supervise();
    }

private:
    bool start(const std::string& program) {
        try {
            const SeccompProgram protection =
                SeccompFilter(protection_rules({self_, ::getppid()})).program();
            const SeccompProgram& filter = filter_;
            process::SpawnSpec spec;
            spec.argv = message_.command;
            spec.argv[0] = program;
            spec.env = command_environment(message_);
            spec.fds = {{0, 0}, {1, 1}, {2, 2}};
            spec.new_session = true; // its own process group: a terminal's signals reach all of it
            spec.cwd = sandbox::kWorkspaceDir;
            rlimit open_files{};
            ::getrlimit(RLIMIT_NOFILE, &open_files);
            const rlim_t hard = std::min(open_files.rlim_max, kOpenFilesHard);
            spec.limits = {{RLIMIT_NOFILE, std::min(kOpenFilesSoft, hard), hard}};
            const bool terminal = message_.terminal;
            spec.before_exec = [&filter, &protection, terminal]() -> int {
                // A command (and all it starts) is the kernel's first choice
                // when the sandbox runs out of memory, never the agent or a
                // helper: raising one's own score needs no privilege.
                const int oom = ::open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
                if (oom >= 0) {
                    [[maybe_unused]] auto written = ::write(oom, "1000", 4);
                    ::close(oom);
                }
                // The exec's pty (the CLI's) becomes its controlling terminal;
                // the filter refuses that to everything after it.
                if (terminal && ::ioctl(0, TIOCSCTTY, 0) != 0) return errno;
                if (const int error = filter.load(); error != 0) return error;
                return protection.load();
            };
            command_ = process::spawn(spec);
            return true;
        } catch (const std::exception& e) {
            say(2, std::string("sandbox-local: cannot run ") + message_.command[0] + ": " +
                       e.what() + "\n");
            answer(kCannotRun);
            return false;
        }
    }

    // The command's ends of its pipes (or its pty) stay with it alone.
    static void drop_stdio() {
        const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
        for (int fd = 0; fd <= 2; ++fd)
            ::dup2(null, fd);
        ::close(null);
    }

    void answer(int code) {
        if (answered_) return;
        answered_ = true;
        // The agent first: once the CLI has the answer it may close the connection.
        say(answered_fd_, "a");
        ::close(answered_fd_);
        say(connection_, encode_exit(code));
        ::close(connection_);
    }

    // Reaps every child that has ended; notes the command's status.
    void reap() {
        int status = 0;
        pid_t pid;
        while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0)
            if (pid == command_) {
                command_status_ = status;
                command_ended_ = true;
            }
    }

    int supervise() {
        process::Fd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, command_, 0)));
        while (true) {
            std::array<pollfd, 2> polls{{{pidfd.get(), POLLIN, 0}, {connection_, POLLIN, 0}}};
            // Without a pidfd (Linux < 5.3): look again every 100 ms.
            if (::poll(polls.data(), polls.size(), pidfd ? -1 : 100) < 0 && errno != EINTR) break;
            reap();
            if (command_ended_) {
                answer(process::exit_code_of(command_status_));
                return linger();
            }
            if (polls[1].revents == 0) continue;
            std::array<unsigned char, 16> bytes{};
            const ssize_t got = ::read(connection_, bytes.data(), bytes.size());
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) { // nobody waits for it any more
                kill_descendants(self_);
                return 0;
            }
            if (std::find(bytes.begin(), bytes.begin() + got, kStopByte) != bytes.begin() + got) {
                stop();
                return 0;
            }
        }
        kill_descendants(self_);
        return 0;
    }

    // As sandbox-kubernetes stops an exec: TERM to everything the command
    // started, up to the grace for all of it to go, then KILL; then the answer.
    void stop() {
        signal_descendants(self_, SIGTERM);
        const auto deadline = Clock::now() + sandbox::kExecTerminateGrace;
        while (Clock::now() < deadline) {
            reap();
            if (command_ended_ && descendants_of(self_).empty()) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        kill_descendants(self_);
        while (!command_ended_) {
            int status = 0;
            const pid_t pid = ::waitpid(command_, &status, 0);
            if (pid == command_) {
                command_status_ = status;
                command_ended_ = true;
            } else if (pid < 0 && errno != EINTR) {
                break;
            }
        }
        answer(command_ended_ ? process::exit_code_of(command_status_) : 128 + SIGKILL);
    }

    // After a normal exit: stays the parent of what the command left running
    // until it has all ended.
    static int linger() {
        while (true) {
            const pid_t pid = ::waitpid(-1, nullptr, 0);
            if (pid < 0 && errno == ECHILD) return 0;
        }
    }

    const ExecMessage& message_;
    int connection_;
    int answered_fd_;
    const SeccompProgram& filter_;
    pid_t self_;
    pid_t command_ = -1;
    int command_status_ = 0;
    bool command_ended_ = false;
    bool answered_ = false;
};

} // namespace

int run_exec_helper(const ExecMessage& message, int connection, int answered,
                    const SeccompProgram& filter) {
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    ::prctl(PR_SET_DUMPABLE, 0);
    ::signal(SIGPIPE, SIG_IGN);
    return Exec(message, connection, answered, filter).run();
}

} // namespace osf::local::agent
