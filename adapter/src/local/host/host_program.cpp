#include "local/host/host_program.hpp"

#include "commands/command_errors.hpp"
#include "local/host/host_environment.hpp"
#include "process/fd.hpp"
#include "process/spawn.hpp"
#include "process/wait.hpp"

#include <array>
#include <cerrno>
#include <unistd.h>

extern char** environ;

namespace osf::local {

using commands::CommandFailed;

std::vector<std::string> caller_environment() {
    std::vector<std::string> env;
    for (char** variable = environ; *variable != nullptr; ++variable)
        env.emplace_back(*variable);
    return env;
}

pid_t spawn_host(const std::vector<std::string>& argv, int in, int out, int err) {
    process::SpawnSpec spec;
    spec.argv = argv;
    spec.fds = {{0, in}, {1, out}, {2, err}};
    spec.env = host_program_environment(argv.at(0), caller_environment());
    try {
        return process::spawn(spec);
    } catch (const process::SpawnError& e) {
        throw CommandFailed(e.what());
    }
}

int wait_exit(pid_t pid) {
    return process::wait_exit(pid);
}

CapturedRun run_capturing(const std::vector<std::string>& argv, Captured which) {
    process::Pipe pipe = process::make_pipe();
    process::Fd null = process::open_null();
    const pid_t pid = which == Captured::stdout_text
                          ? spawn_host(argv, null.get(), pipe.write.get(), 2)
                          : spawn_host(argv, null.get(), null.get(), pipe.write.get());
    pipe.write = process::Fd();
    CapturedRun run;
    std::array<char, 4096> buffer{};
    while (true) {
        const ssize_t got = ::read(pipe.read.get(), buffer.data(), buffer.size());
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        run.text.append(buffer.data(), static_cast<std::size_t>(got));
    }
    run.exit_code = wait_exit(pid);
    while (!run.text.empty() && run.text.back() == '\n')
        run.text.pop_back();
    return run;
}

} // namespace osf::local
