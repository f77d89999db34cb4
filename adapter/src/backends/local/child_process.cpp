#include "backends/local/child_process.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/prctl.h>
#include <unistd.h>

namespace osf::backends::local {

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

int start_child(const ChildSpec& spec) {
    std::vector<char*> argv;
    for (const auto& arg : spec.argv)
        argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (const auto& var : spec.envp)
        envp.push_back(const_cast<char*>(var.c_str()));
    envp.push_back(nullptr);
    const char* path = getenv("PATH");
    const std::string program =
        find_in_path(spec.argv.at(0), path ? path : "/usr/local/bin:/usr/bin:/bin");
    const std::string output = spec.output_path.empty() ? "/dev/null" : spec.output_path;
    const pid_t parent = ::getpid();

    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid > 0) return pid;

    // The child: only async-signal-safe calls from here on.
    if (spec.die_with_parent) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);
    }
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD})
        ::signal(sig, SIG_DFL);
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(output.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (in < 0 || out < 0) ::_exit(127);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
    for (int fd : spec.keep_fds) {
        const int flags = ::fcntl(fd, F_GETFD);
        if (flags >= 0) ::fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
    }
    if (!program.empty()) ::execve(program.c_str(), argv.data(), envp.data());
    const char* message = "cannot run ";
    [[maybe_unused]] auto ignored = ::write(2, message, std::strlen(message));
    ignored = ::write(2, spec.argv[0].c_str(), spec.argv[0].size());
    ignored = ::write(2, "\n", 1);
    ::_exit(127);
}

} // namespace osf::backends::local
