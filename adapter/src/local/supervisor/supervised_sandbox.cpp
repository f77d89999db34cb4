#include "local/supervisor/supervised_sandbox.hpp"

#include "osf/atomic_file.hpp"
#include "osf/whole_file.hpp"

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace osf::local::supervisor {

std::string SupervisedSandbox::id() const {
    return std::filesystem::path(paths.dir).filename().string();
}

std::string read_file(const std::string& path) {
    return osf::read_whole_file(path).value_or("");
}

std::string last_line(const std::string& path) {
    std::string text = read_file(path);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
        text.pop_back();
    const auto newline = text.rfind('\n');
    return newline == std::string::npos ? text : text.substr(newline + 1);
}

void write_file(const std::string& path, const std::string& text, mode_t mode) {
    try {
        osf::write_file_atomically(path, text, mode);
    } catch (const std::runtime_error& e) {
        throw StartFailed(e.what());
    }
}

std::pair<Fd, Fd> seqpacket_pair() {
    std::array<int, 2> pair{};
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair.data()) != 0)
        throw StartFailed(std::string("socketpair: ") + std::strerror(errno));
    return {Fd(pair[0]), Fd(pair[1])};
}

void check_stop_signal(const SupervisedSandbox& sandbox) {
    signalfd_siginfo info{};
    while (::read(sandbox.signals.get(), &info, sizeof(info)) == sizeof(info))
        if (info.ssi_signo == SIGTERM || info.ssi_signo == SIGINT)
            throw StartFailed("stopped by signal " + std::to_string(info.ssi_signo));
}

process::SpawnSpec output_to(const std::string& path, std::vector<Fd>& keep_open) {
    process::SpawnSpec spec;
    Fd null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    Fd out(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
    if (!null || !out) throw StartFailed("cannot open " + path + ": " + std::strerror(errno));
    spec.fds = {{0, null.get()}, {1, out.get()}, {2, out.get()}};
    keep_open.push_back(std::move(null));
    keep_open.push_back(std::move(out));
    return spec;
}

} // namespace osf::local::supervisor
