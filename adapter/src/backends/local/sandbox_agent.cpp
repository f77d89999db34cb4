#include "backends/local/sandbox_agent.hpp"

#include "backends/local/bwrap_command.hpp"
#include "backends/local/byte_relay.hpp"
#include "backends/local/child_process.hpp"
#include "backends/local/exec_protocol.hpp"
#include "backends/local/sandbox_environment.hpp"
#include "backends/local/unix_socket.hpp"
#include "manifests/exec_stop.hpp"
#include "manifests/sandbox_id.hpp"
#include "manifests/sandbox_objects.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <poll.h>
#include <random>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace osf::backends::local {

namespace {

void accept_proxy_connections(Fd listener) {
    while (true) {
        Fd client(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
        if (!client) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            return;
        }
        try {
            relay_in_background(std::move(client), connect_unix(kEgressSocketPath));
        } catch (const std::exception& e) {
            std::cerr << "sandbox-local agent: " << e.what() << "\n"; // the client sees a reset
        }
    }
}

void write_text(int fd, const std::string& text) {
    write_all(fd, text.data(), text.size());
}

// The processes whose environment carries the exec's marker.
std::vector<pid_t> marked_processes(const std::string& marker) {
    std::vector<pid_t> pids;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream file(entry.path() / "environ", std::ios::binary);
        const std::string block((std::istreambuf_iterator<char>(file)),
                                std::istreambuf_iterator<char>());
        if (environ_has_marker(block, marker)) pids.push_back(std::stoi(name));
    }
    return pids;
}

// The command's process group and every process carrying its marker.
void signal_command(pid_t group, const std::string& marker, int signal) {
    ::kill(-group, signal);
    for (const pid_t pid : marked_processes(marker))
        ::kill(pid, signal);
}

// As sandbox-kubernetes stops an exec: TERM, up to the grace for everything
// to go, then KILL. Reaps the command when it ends within the grace.
void stop_command(pid_t pid, const std::string& marker, int& status, bool& reaped) {
    signal_command(pid, marker, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + manifests::kExecTerminateGrace;
    while (std::chrono::steady_clock::now() < deadline) {
        if (!reaped && ::waitpid(pid, &status, WNOHANG) == pid) reaped = true;
        if (reaped && marked_processes(marker).empty()) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    signal_command(pid, marker, SIGKILL);
}

std::string new_marker() {
    std::random_device device; // /dev/urandom
    std::array<std::uint8_t, 6> bytes{};
    for (auto& byte : bytes)
        byte = static_cast<std::uint8_t>(device());
    return manifests::sandbox_id_from_bytes(bytes);
}

// Runs one command with the client's descriptors and answers on `connection`.
void run_command(ExecMessage message, Fd connection, Fd in, Fd out, Fd err) {
    const char* path_variable = ::getenv("PATH");
    const std::string program =
        find_in_path(message.command[0], path_variable ? path_variable : "");
    const int problem = program.empty() ? ENOENT : ::access(program.c_str(), X_OK) != 0 ? errno : 0;
    if (problem != 0) {
        write_text(err.get(), "sandbox-local: cannot run " + message.command[0] + ": " +
                                  (program.empty() ? "not found" : std::strerror(problem)) + "\n");
        write_text(connection.get(), encode_exit(problem == ENOENT ? kNotFound : kCannotRun));
        return;
    }
    std::vector<std::string> env_strings;
    for (char** var = environ; *var != nullptr; ++var)
        if (!message.terminal || !std::string_view(*var).starts_with("TERM="))
            env_strings.emplace_back(*var);
    if (message.terminal && !message.term.empty()) env_strings.push_back("TERM=" + message.term);
    const std::string marker = new_marker();
    env_strings.push_back(std::string(manifests::kExecMarkerVariable) + "=" + marker);
    std::vector<char*> argv, envp;
    for (auto& arg : message.command)
        argv.push_back(arg.data());
    argv.push_back(nullptr);
    for (auto& var : env_strings)
        envp.push_back(var.data());
    envp.push_back(nullptr);
    const std::string cannot_run = "sandbox-local: cannot run " + message.command[0] + "\n";

    const pid_t pid = ::fork();
    if (pid < 0) {
        write_text(err.get(), std::string("sandbox-local: fork: ") + std::strerror(errno) + "\n");
        write_text(connection.get(), encode_exit(kCannotRun));
        return;
    }
    if (pid == 0) {
        ::setsid(); // its own process group, so signals reach all of it
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD})
            ::signal(sig, SIG_DFL);
        ::dup2(in.get(), 0);
        ::dup2(out.get(), 1);
        ::dup2(err.get(), 2);
        if (::chdir(manifests::kWorkspaceDir) != 0) ::_exit(kCannotRun);
        ::execve(program.c_str(), argv.data(), envp.data());
        [[maybe_unused]] auto ignored = ::write(2, cannot_run.data(), cannot_run.size());
        ::_exit(kCannotRun);
    }
    in = Fd();
    out = Fd();
    err = Fd();
    Fd process(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
    int status = 0;
    bool reaped = false;
    auto finish = [&](bool answer) {
        while (!reaped && ::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (answer) write_text(connection.get(), encode_exit(exit_code_of(status)));
    };
    while (true) {
        std::array<pollfd, 2> polls{{{process.get(), POLLIN, 0}, {connection.get(), POLLIN, 0}}};
        if (::poll(polls.data(), polls.size(), process ? -1 : 200) < 0 && errno != EINTR) break;
        if (polls[1].revents != 0) {
            std::array<unsigned char, 16> bytes{};
            const ssize_t got = ::read(connection.get(), bytes.data(), bytes.size());
            if (got <= 0) { // nobody waits for it any more
                signal_command(pid, marker, SIGKILL);
                finish(false);
                return;
            }
            if (std::find(bytes.begin(), bytes.begin() + got, kStopByte) != bytes.begin() + got) {
                stop_command(pid, marker, status, reaped);
                finish(true);
                return;
            }
        }
        if (::waitpid(pid, &status, WNOHANG) == pid) {
            reaped = true;
            finish(true);
            return;
        }
    }
}

} // namespace

int run_sandbox_agent(int control_fd) {
    ::prctl(PR_SET_DUMPABLE, 0); // the sandbox's own processes cannot ptrace it
    ::signal(SIGPIPE, SIG_IGN);
    Fd control(control_fd);
    try {
        std::thread(accept_proxy_connections, listen_tcp_loopback(kSandboxProxyPort)).detach();
    } catch (const std::exception& e) {
        std::cerr << "sandbox-local agent: " << e.what() << "\n";
        return 1;
    }
    send_with_fds(control.get(), "ready", {});
    while (true) {
        std::string bytes;
        std::vector<Fd> fds;
        try {
            if (!receive_with_fds(control.get(), bytes, fds)) return 0;
        } catch (const std::exception& e) {
            std::cerr << "sandbox-local agent: " << e.what() << "\n";
            return 1;
        }
        auto message = decode_exec_message(bytes);
        if (!message || fds.size() != 4) continue; // closing the descriptors answers
        std::thread(run_command, std::move(*message), std::move(fds[0]), std::move(fds[1]),
                    std::move(fds[2]), std::move(fds[3]))
            .detach();
    }
}

} // namespace osf::backends::local
