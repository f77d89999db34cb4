#include "backends/local/host_program.hpp"

#include "backends/local/exec_protocol.hpp"
#include "backends/local/unix_socket.hpp"
#include "commands/command_errors.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace osf::backends::local {

using commands::CommandFailed;

pid_t spawn_host(const std::vector<std::string>& argv, int in, int out, int err) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (in != 0) posix_spawn_file_actions_adddup2(&actions, in, 0);
    if (out != 1) posix_spawn_file_actions_adddup2(&actions, out, 1);
    if (err != 2) posix_spawn_file_actions_adddup2(&actions, err, 2);
    std::vector<char*> args;
    for (const auto& arg : argv)
        args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    const int error = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (error != 0) throw CommandFailed("cannot run " + argv[0] + ": " + std::strerror(error));
    return pid;
}

int wait_exit(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return exit_code_of(status);
}

CapturedRun run_capturing(const std::vector<std::string>& argv, Captured which) {
    std::array<int, 2> pipe{};
    if (::pipe2(pipe.data(), O_CLOEXEC) != 0)
        throw CommandFailed(std::string("pipe: ") + std::strerror(errno));
    Fd read_end(pipe[0]), write_end(pipe[1]);
    pid_t pid = -1;
    if (which == Captured::stdout_text) {
        pid = spawn_host(argv, 0, write_end.get());
    } else {
        Fd null(::open("/dev/null", O_RDWR | O_CLOEXEC));
        pid = spawn_host(argv, null.get(), null.get(), write_end.get());
    }
    write_end = Fd();
    CapturedRun run;
    std::array<char, 4096> buffer{};
    while (true) {
        const ssize_t got = ::read(read_end.get(), buffer.data(), buffer.size());
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        run.text.append(buffer.data(), static_cast<std::size_t>(got));
    }
    run.exit_code = wait_exit(pid);
    while (!run.text.empty() && run.text.back() == '\n')
        run.text.pop_back();
    return run;
}

} // namespace osf::backends::local
