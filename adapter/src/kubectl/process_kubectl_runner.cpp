#include "kubectl/process_kubectl_runner.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace osf::kubectl {

namespace {

// Child-side descriptors are moved above this number first so that the
// dup2 onto 0, 1, 2, 3... of one mapping never clobbers the source of another.
constexpr int kHighFd = 64;
// How often a call with should_stop asks it.
constexpr int kStopPollMilliseconds = 200;

class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(Fd&& other) noexcept : fd_(other.release()) {}
    Fd& operator=(Fd&& other) noexcept {
        if (this != &other) {
            reset();
            fd_ = other.release();
        }
        return *this;
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() { reset(); }
    int get() const { return fd_; }
    bool valid() const { return fd_ >= 0; }
    int release() {
        const int fd = fd_;
        fd_ = -1;
        return fd;
    }
    void reset() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }

private:
    int fd_ = -1;
};

Fd high(int fd) {
    const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, kHighFd);
    ::close(fd);
    if (moved < 0) throw std::runtime_error(std::string("fcntl: ") + std::strerror(errno));
    return Fd(moved);
}

struct Pipe {
    Fd read;
    Fd write;
};

Pipe make_pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    return Pipe{high(fds[0]), high(fds[1])};
}

void set_nonblocking(int fd) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

// A pending write of bytes into a child's pipe.
struct Writer {
    Fd fd;
    std::string data;
    std::size_t offset = 0;
};

// A pipe we read from: a stage's stderr, or the last stage's stdout.
struct Reader {
    Fd fd;
    std::size_t stage;
    bool is_stderr;
};

int exit_code_of(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}

} // namespace

std::vector<KubectlResult>
ProcessKubectlRunner::run_pipeline(const std::vector<KubectlCall>& calls) {
    // A child that stops reading must not kill the adapter.
    static const bool sigpipe_ignored = (std::signal(SIGPIPE, SIG_IGN), true);
    (void)sigpipe_ignored;
    std::vector<KubectlResult> results(calls.size());
    std::vector<pid_t> pids(calls.size(), -1);
    std::vector<Writer> writers;
    std::vector<Reader> readers;

    Fd previous_stdout; // the read end of the previous stage's stdout
    for (std::size_t i = 0; i < calls.size(); ++i) {
        const KubectlCall& call = calls[i];
        const bool last = i + 1 == calls.size();

        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        std::unique_ptr<posix_spawn_file_actions_t, int (*)(posix_spawn_file_actions_t*)>
            actions_guard(&actions, posix_spawn_file_actions_destroy);
        std::vector<Fd> child_ends; // closed in the parent once the child holds them

        // stdin
        if (i > 0) {
            posix_spawn_file_actions_adddup2(&actions, previous_stdout.get(), 0);
            child_ends.push_back(std::move(previous_stdout));
        } else if (!call.inherit_stdin) {
            Pipe in = make_pipe();
            posix_spawn_file_actions_adddup2(&actions, in.read.get(), 0);
            child_ends.push_back(std::move(in.read));
            writers.push_back(Writer{std::move(in.write), call.input, 0});
        }
        // stdout
        if (!last) {
            Pipe out = make_pipe();
            posix_spawn_file_actions_adddup2(&actions, out.write.get(), 1);
            child_ends.push_back(std::move(out.write));
            previous_stdout = std::move(out.read);
        } else if (!call.inherit_stdout) {
            Pipe out = make_pipe();
            posix_spawn_file_actions_adddup2(&actions, out.write.get(), 1);
            child_ends.push_back(std::move(out.write));
            readers.push_back(Reader{std::move(out.read), i, false});
        }
        // stderr
        {
            Pipe err = make_pipe();
            posix_spawn_file_actions_adddup2(&actions, err.write.get(), 2);
            child_ends.push_back(std::move(err.write));
            readers.push_back(Reader{std::move(err.read), i, true});
        }
        // extra inputs on fd 3, 4, ...
        for (std::size_t k = 0; k < call.extra_inputs.size(); ++k) {
            Pipe extra = make_pipe();
            posix_spawn_file_actions_adddup2(&actions, extra.read.get(), static_cast<int>(3 + k));
            child_ends.push_back(std::move(extra.read));
            writers.push_back(Writer{std::move(extra.write), call.extra_inputs[k], 0});
        }

        posix_spawnattr_t attr;
        posix_spawnattr_init(&attr);
        std::unique_ptr<posix_spawnattr_t, int (*)(posix_spawnattr_t*)> attr_guard(
            &attr, posix_spawnattr_destroy);
        sigset_t defaults;
        sigemptyset(&defaults);
        sigaddset(&defaults, SIGINT);
        sigaddset(&defaults, SIGTERM);
        sigaddset(&defaults, SIGPIPE);
        sigset_t empty;
        sigemptyset(&empty);
        posix_spawnattr_setsigdefault(&attr, &defaults);
        posix_spawnattr_setsigmask(&attr, &empty);
        short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
        // A call that does not read the terminal gets its own process group, so
        // Ctrl-C reaches only the adapter, which then cleans up in order.
        if (!calls.front().inherit_stdin) {
            posix_spawnattr_setpgroup(&attr, 0);
            flags |= POSIX_SPAWN_SETPGROUP;
        }
        posix_spawnattr_setflags(&attr, flags);

        std::vector<std::string> argv_storage;
        argv_storage.push_back(program_);
        argv_storage.insert(argv_storage.end(), call.args.begin(), call.args.end());
        std::vector<char*> argv;
        for (auto& arg : argv_storage)
            argv.push_back(arg.data());
        argv.push_back(nullptr);

        pid_t pid = -1;
        const int rc =
            ::posix_spawnp(&pid, program_.c_str(), &actions, &attr, argv.data(), environ);
        if (rc != 0) {
            results[i].exit_code = 127;
            results[i].err = "cannot run " + program_ + ": " + std::strerror(rc);
        } else {
            pids[i] = pid;
        }
    }

    // Feed inputs and drain outputs together so no pipe fills up and blocks.
    for (auto& writer : writers)
        set_nonblocking(writer.fd.get());
    for (auto& writer : writers)
        if (writer.data.empty()) writer.fd.reset();
    char buffer[65536];
    const KubectlCall* stoppable = nullptr;
    for (const auto& call : calls)
        if (call.should_stop) stoppable = &call;
    bool stopped = false;
    for (;;) {
        if (stoppable && !stopped && stoppable->should_stop()) {
            stopped = true;
            for (const pid_t pid : pids)
                if (pid > 0) ::kill(pid, SIGTERM);
        }
        std::vector<pollfd> fds;
        std::vector<std::pair<bool, std::size_t>> owners; // (is_writer, index)
        for (std::size_t w = 0; w < writers.size(); ++w)
            if (writers[w].fd.valid()) {
                fds.push_back(pollfd{writers[w].fd.get(), POLLOUT, 0});
                owners.emplace_back(true, w);
            }
        for (std::size_t r = 0; r < readers.size(); ++r)
            if (readers[r].fd.valid()) {
                fds.push_back(pollfd{readers[r].fd.get(), POLLIN, 0});
                owners.emplace_back(false, r);
            }
        if (fds.empty()) break;
        // A stoppable call wakes up to ask again; others wait for their pipes.
        const int wait_ms = stoppable && !stopped ? kStopPollMilliseconds : -1;
        if (::poll(fds.data(), fds.size(), wait_ms) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (std::size_t f = 0; f < fds.size(); ++f) {
            if (fds[f].revents == 0) continue;
            const auto [is_writer, index] = owners[f];
            if (is_writer) {
                Writer& writer = writers[index];
                const ssize_t n = ::write(writer.fd.get(), writer.data.data() + writer.offset,
                                          writer.data.size() - writer.offset);
                if (n > 0) writer.offset += static_cast<std::size_t>(n);
                if ((n < 0 && errno != EAGAIN && errno != EINTR) ||
                    writer.offset == writer.data.size())
                    writer.fd.reset(); // done, or the child stopped reading
                continue;
            }
            Reader& reader = readers[index];
            const ssize_t n = ::read(reader.fd.get(), buffer, sizeof buffer);
            if (n > 0) {
                const std::string_view chunk(buffer, static_cast<std::size_t>(n));
                const KubectlCall& call = calls[reader.stage];
                if (reader.is_stderr && call.on_stderr)
                    call.on_stderr(chunk);
                else if (reader.is_stderr)
                    results[reader.stage].err.append(chunk);
                else
                    results[reader.stage].out.append(chunk);
            } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                reader.fd.reset();
            }
        }
    }
    for (auto& writer : writers)
        writer.fd.reset();

    for (std::size_t i = 0; i < pids.size(); ++i) {
        if (pids[i] < 0) continue;
        int status = 0;
        for (;;) {
            const bool ask = stoppable && !stopped;
            const pid_t done = ::waitpid(pids[i], &status, ask ? WNOHANG : 0);
            if (done == pids[i] || (done < 0 && errno != EINTR)) break;
            if (done == 0) { // still running, and its pipes are closed
                if (stoppable->should_stop()) {
                    stopped = true;
                    ::kill(pids[i], SIGTERM);
                } else {
                    ::poll(nullptr, 0, kStopPollMilliseconds);
                }
            }
        }
        results[i].exit_code = exit_code_of(status);
    }
    return results;
}

} // namespace osf::kubectl
