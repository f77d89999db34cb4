#include "local/protocol/exec_client.hpp"

#include "local/protocol/sandbox_text.hpp"
#include "local/protocol/unix_socket.hpp"
#include "process/fd.hpp"
#include "sandbox/exec_stop.hpp"

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <stdexcept>
#include <string>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

namespace osf::local {

namespace {

using Clock = std::chrono::steady_clock;
using process::Fd;

// What the command reads and writes: its ends, and the CLI's.
struct CommandStreams {
    Fd command_in, command_out, command_err; // sent to the sandbox, then closed here
    Fd to_command;                           // the CLI writes the command's stdin here
    Fd from_out, from_err;                   // the CLI reads the command's output here
    bool terminal = false;
};

CommandStreams make_pipes() {
    CommandStreams streams;
    auto in = process::make_pipe();
    auto out = process::make_pipe();
    auto err = process::make_pipe();
    streams.command_in = std::move(in.read);
    streams.to_command = std::move(in.write);
    streams.command_out = std::move(out.write);
    streams.from_out = std::move(out.read);
    streams.command_err = std::move(err.write);
    streams.from_err = std::move(err.read);
    return streams;
}

// A pty of the CLI's own: the command's stdin, stdout and stderr are its
// slave; the CLI copies between its master and the caller's terminal.
CommandStreams make_pty(int caller_terminal) {
    Fd master(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
    if (!master || ::grantpt(master.get()) != 0 || ::unlockpt(master.get()) != 0)
        throw std::runtime_error(std::string("cannot open a pty: ") + std::strerror(errno));
    const char* name = ::ptsname(master.get());
    Fd slave(name ? ::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC) : -1);
    if (!slave) throw std::runtime_error(std::string("cannot open a pty: ") + std::strerror(errno));
    termios settings{};
    if (::tcgetattr(caller_terminal, &settings) == 0) ::tcsetattr(slave.get(), TCSANOW, &settings);
    winsize size{};
    if (::ioctl(caller_terminal, TIOCGWINSZ, &size) == 0) ::ioctl(master.get(), TIOCSWINSZ, &size);
    CommandStreams streams;
    streams.terminal = true;
    streams.command_in = Fd(::fcntl(slave.get(), F_DUPFD_CLOEXEC, 0));
    streams.command_out = Fd(::fcntl(slave.get(), F_DUPFD_CLOEXEC, 0));
    streams.command_err = std::move(slave);
    streams.to_command = Fd(::fcntl(master.get(), F_DUPFD_CLOEXEC, 0));
    streams.from_out = std::move(master);
    return streams;
}

// The caller's terminal in raw mode while the exec runs (the pty inside does
// the line editing and the signal keys); restored on every way out.
class RawMode {
public:
    explicit RawMode(int fd) : fd_(fd) {
        if (::tcgetattr(fd_, &saved_) != 0) return;
        termios raw = saved_;
        ::cfmakeraw(&raw);
        active_ = ::tcsetattr(fd_, TCSANOW, &raw) == 0;
    }
    RawMode(const RawMode&) = delete;
    RawMode& operator=(const RawMode&) = delete;
    ~RawMode() {
        if (active_) ::tcsetattr(fd_, TCSANOW, &saved_);
    }

private:
    int fd_;
    termios saved_{};
    bool active_ = false;
};

// SIGPIPE ignored while the exec runs: a command that closes its stdin is an
// EPIPE to handle, not the CLI's death (a caller's reader that goes: Output).
class IgnoredSigpipe {
public:
    IgnoredSigpipe() {
        struct sigaction ignore {};
        ignore.sa_handler = SIG_IGN;
        ::sigemptyset(&ignore.sa_mask);
        ::sigaction(SIGPIPE, &ignore, &saved_);
    }
    IgnoredSigpipe(const IgnoredSigpipe&) = delete;
    IgnoredSigpipe& operator=(const IgnoredSigpipe&) = delete;
    ~IgnoredSigpipe() { ::sigaction(SIGPIPE, &saved_, nullptr); }

private:
    struct sigaction saved_ {};
};

// Where the command's output goes: the caller's descriptors, its stdout
// bounded, its stderr escaped when asked.
class Output {
public:
    explicit Output(const ExecStreams& caller) : caller_(caller) {}

    // False when `out` would pass its bound (nothing more is written).
    bool put(bool to_out, const char* bytes, std::size_t size) {
        if (to_out) {
            written_ += size;
            if (caller_.out_limit != 0 && written_ > caller_.out_limit) return false;
            deliver(caller_.out, bytes, size);
        } else if (caller_.escape_err) {
            const std::string text = printable_text(std::string(bytes, size));
            deliver(caller_.err, text.data(), text.size());
        } else {
            deliver(caller_.err, bytes, size);
        }
        return true;
    }

    // The caller's reader went (`exec ... | head -1`): the exec ends as if
    // SIGPIPE had ended the CLI, which stops the command.
    bool caller_gone() const { return caller_gone_; }

private:
    void deliver(int fd, const char* bytes, std::size_t size) {
        if (!process::write_all(fd, bytes, size) && errno == EPIPE) caller_gone_ = true;
    }

    const ExecStreams& caller_;
    unsigned long long written_ = 0;
    bool caller_gone_ = false;
};

// Copies what the command wrote and is already there, without waiting.
bool drain(const Fd& from, bool to_out, Output& output) {
    if (!from) return true;
    process::set_nonblocking(from.get(), true);
    std::array<char, 65536> buffer{};
    while (true) {
        const ssize_t got = ::read(from.get(), buffer.data(), buffer.size());
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return true;
        if (!output.put(to_out, buffer.data(), static_cast<std::size_t>(got))) return false;
    }
}

// A resized caller's terminal resizes the command's.
void forward_terminal_size(int caller_in, const Fd& to_command, winsize& last_size) {
    winsize size{};
    if (::ioctl(caller_in, TIOCGWINSZ, &size) == 0 &&
        (size.ws_row != last_size.ws_row || size.ws_col != last_size.ws_col)) {
        ::ioctl(to_command.get(), TIOCSWINSZ, &size);
        last_size = size;
    }
}

// What the caller typed (`readable`: its stdin polled readable) into `pending`,
// and as much of `pending` as the command takes; its end closes the
// command's stdin (a pipe's; a terminal's stays).
void pass_caller_input(bool readable, int caller_in, CommandStreams& streams, std::string& pending,
                       bool& caller_in_open) {
    if (readable) {
        std::array<char, 65536> buffer{};
        const ssize_t got = ::read(caller_in, buffer.data(), buffer.size());
        if (got > 0) {
            pending.assign(buffer.data(), static_cast<std::size_t>(got));
        } else if (!(got < 0 && (errno == EINTR || errno == EAGAIN))) {
            caller_in_open = false;
            if (!streams.terminal) streams.to_command = Fd(); // the command sees EOF
        }
    }
    if (!pending.empty() && streams.to_command) {
        const ssize_t put = ::write(streams.to_command.get(), pending.data(), pending.size());
        if (put > 0) {
            pending.erase(0, static_cast<std::size_t>(put));
        } else if (put < 0 && errno != EAGAIN && errno != EINTR) {
            pending.clear(); // the command closed its stdin
            caller_in_open = false;
            streams.to_command = Fd();
        }
    } else if (!streams.to_command) {
        pending.clear();
    }
}

} // namespace

ExecOutcome run_exec(int connection, const ExecMessage& message, const ExecStreams& caller,
                     std::optional<std::chrono::seconds> timeout,
                     const std::function<int()>& pending_signal) {
    const IgnoredSigpipe no_sigpipe;
    Output output(caller);
    CommandStreams streams = message.terminal ? make_pty(caller.in) : make_pipes();
    send_with_fds(connection, encode_exec_message(message),
                  {streams.command_in.get(), streams.command_out.get(), streams.command_err.get()});
    streams.command_in = Fd();
    streams.command_out = Fd();
    streams.command_err = Fd();
    std::optional<RawMode> raw;
    if (streams.terminal) raw.emplace(caller.in);
    process::set_nonblocking(streams.to_command.get(), true);

    winsize last_size{};
    if (streams.terminal) ::ioctl(caller.in, TIOCGWINSZ, &last_size);
    bool caller_in_open = true;
    std::string pending; // read from the caller, not yet taken by the command
    const auto started = Clock::now();
    std::optional<Clock::time_point> stop_sent;
    ExecOutcome outcome;
    std::string answer;
    while (true) {
        if (!stop_sent) {
            outcome.signal = pending_signal ? pending_signal() : 0;
            outcome.timed_out =
                outcome.signal == 0 && timeout && Clock::now() >= started + *timeout;
            if (outcome.signal != 0 || outcome.timed_out) {
                process::write_all(connection, &kStopByte, 1);
                stop_sent = Clock::now();
            }
        } else if (Clock::now() >
                   *stop_sent + sandbox::kExecTerminateGrace + std::chrono::seconds(30)) {
            return outcome;
        }
        if (streams.terminal) forward_terminal_size(caller.in, streams.to_command, last_size);
        enum { kConnection, kCallerIn, kToCommand, kOut, kErr };
        std::array<pollfd, 5> polls{
            {{connection, POLLIN, 0},
             {caller_in_open && pending.empty() ? caller.in : -1, POLLIN, 0},
             {!pending.empty() ? streams.to_command.get() : -1, POLLOUT, 0},
             {streams.from_out ? streams.from_out.get() : -1, POLLIN, 0},
             {streams.from_err ? streams.from_err.get() : -1, POLLIN, 0}}};
        if (::poll(polls.data(), polls.size(), 200) < 0) {
            if (errno == EINTR) continue;
            return outcome;
        }
        std::array<char, 65536> buffer{};
        for (const int which : {kOut, kErr}) {
            if (polls[which].revents == 0) continue;
            Fd& from = which == kOut ? streams.from_out : streams.from_err;
            const ssize_t got = ::read(from.get(), buffer.data(), buffer.size());
            if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (got <= 0) {
                // EOF (or EIO: a pty whose last slave closed).
                if (which == kOut && streams.terminal) {
                    streams.from_out = Fd();
                    streams.to_command = Fd();
                    pending.clear();
                } else {
                    from = Fd();
                }
                continue;
            }
            if (!output.put(which == kOut, buffer.data(), static_cast<std::size_t>(got))) {
                outcome.over_limit = true;
                return outcome; // the connection closes: the agent's side kills the command
            }
            if (output.caller_gone()) {
                outcome.signal = SIGPIPE;
                return outcome;
            }
        }
        pass_caller_input(polls[kCallerIn].revents != 0, caller.in, streams, pending,
                          caller_in_open);
        if (polls[kConnection].revents != 0) {
            const ssize_t got = ::read(connection, buffer.data(), 64);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) return outcome;
            answer.append(buffer.data(), static_cast<std::size_t>(got));
            if (answer.find('\n') != std::string::npos) {
                outcome.exit_code = decode_exit(answer);
                outcome.over_limit = !drain(streams.from_out, true, output);
                drain(streams.from_err, false, output);
                return outcome;
            }
        }
    }
}

} // namespace osf::local
