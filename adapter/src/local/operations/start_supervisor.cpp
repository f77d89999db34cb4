#include "local/operations/start_supervisor.hpp"

#include "commands/command_errors.hpp"
#include "local/protocol/start_status.hpp"
#include "local/state/sandbox_store.hpp"
#include "process/fd.hpp"
#include "process/spawn.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

namespace osf::local::operations {

using commands::CommandFailed;
using process::Fd;

void start_supervisor(OperationContext& context, const SandboxPaths& paths,
                      std::ostream& progress) {
    std::array<int, 2> status{};
    if (::pipe2(status.data(), O_CLOEXEC) != 0)
        throw CommandFailed(std::string("pipe: ") + std::strerror(errno));
    Fd status_read(status[0]);
    Fd status_write(status[1]);
    // Taken here and inherited, so that the sandbox is never without a
    // holder (gc removes sandboxes whose lock is free).
    Fd lock(::open(paths.lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (!lock || ::flock(lock.get(), LOCK_EX | LOCK_NB) != 0)
        throw CommandFailed("cannot lock " + paths.lock + ": " + std::strerror(errno));
    constexpr int kStatusFd = 3, kLockFd = 4;
    Fd null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    Fd log(::open(paths.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
    if (!null || !log)
        throw CommandFailed("cannot open " + paths.log + ": " + std::strerror(errno));
    process::SpawnSpec spec;
    spec.argv = {context.options.self_executable, "__supervise", paths.dir,
                 std::to_string(kStatusFd), std::to_string(kLockFd)};
    // Exactly these: whatever else the caller holds (a connection, a file)
    // stays out of the supervisor and of everything it starts.
    spec.fds = {{0, null.get()},
                {1, log.get()},
                {2, log.get()},
                {kStatusFd, status_write.get()},
                {kLockFd, lock.get()}};
    spec.new_session = true; // no terminal: Ctrl-C after create does not reach it
    pid_t supervisor = -1;
    try {
        supervisor = process::spawn(spec);
    } catch (const std::exception& e) {
        throw CommandFailed(std::string("the supervisor: ") + e.what());
    }
    status_write = Fd();
    lock = Fd(); // the supervisor holds it now

    try {
        std::string pending;
        while (true) {
            if (const int signal =
                    context.options.pending_signal ? context.options.pending_signal() : 0)
                throw commands::Interrupted(signal);
            pollfd poll_status{status_read.get(), POLLIN, 0};
            if (::poll(&poll_status, 1, 200) <= 0) continue;
            std::array<char, 4096> buffer{};
            const ssize_t got = ::read(status_read.get(), buffer.data(), buffer.size());
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) {
                std::ifstream file(paths.log);
                std::string line, last;
                while (std::getline(file, line))
                    if (!line.empty()) last = line;
                throw CommandFailed("the sandbox's supervisor exited: " + last);
            }
            pending.append(buffer.data(), static_cast<std::size_t>(got));
            std::size_t newline;
            while ((newline = pending.find('\n')) != std::string::npos) {
                const std::string line = pending.substr(0, newline);
                pending.erase(0, newline + 1);
                const StatusLine status = parse_status_line(line);
                if (status.kind == StartStatus::Ready) return;
                if (status.kind == StartStatus::Warning)
                    progress << context.options.program << ": " << line << "\n";
                else if (status.kind == StartStatus::Error)
                    throw CommandFailed(status.message);
            }
        }
    } catch (...) {
        try {
            stop_supervisor(paths);
        } catch (const std::exception& e) {
            progress << context.options.program << ": stopping the supervisor failed: " << e.what()
                     << "\n";
        }
        ::waitpid(supervisor, nullptr, 0);
        throw;
    }
}

} // namespace osf::local::operations
