#include "backends/local/local_log_access.hpp"

#include "backends/local/proxy_binary.hpp"
#include "backends/local/sandbox_store.hpp"
#include "backends/local/unix_socket.hpp"
#include "commands/command_errors.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace osf::backends::local {

using commands::CommandFailed;

namespace {

std::optional<std::string> read_whole(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) return std::nullopt;
    return std::string(std::istreambuf_iterator<char>(file), {});
}

// Runs the program with stdout discarded; its exit code and the last line it
// wrote to stderr.
std::pair<int, std::string> run_for_stderr(const std::vector<std::string>& argv) {
    std::array<int, 2> pipe{};
    if (::pipe2(pipe.data(), O_CLOEXEC) != 0)
        throw CommandFailed(std::string("pipe: ") + std::strerror(errno));
    Fd read_end(pipe[0]), write_end(pipe[1]);
    Fd null(::open("/dev/null", O_RDWR | O_CLOEXEC));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, null.get(), 0);
    posix_spawn_file_actions_adddup2(&actions, null.get(), 1);
    posix_spawn_file_actions_adddup2(&actions, write_end.get(), 2);
    std::vector<char*> args;
    for (const auto& arg : argv)
        args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    const int error = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (error != 0) throw CommandFailed("cannot run " + argv[0] + ": " + std::strerror(error));
    write_end = Fd();
    std::string output;
    std::array<char, 4096> buffer{};
    while (true) {
        const ssize_t got = ::read(read_end.get(), buffer.data(), buffer.size());
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        output.append(buffer.data(), static_cast<std::size_t>(got));
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    while (!output.empty() && output.back() == '\n')
        output.pop_back();
    const auto newline = output.rfind('\n');
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
            newline == std::string::npos ? output : output.substr(newline + 1)};
}

} // namespace

LocalLogAccess::LocalLogAccess(SandboxPaths paths, std::string id, manifests::EnvLookup getenv)
    : paths_(std::move(paths)), id_(std::move(id)), getenv_(std::move(getenv)) {}

commands::LogKey LocalLogAccess::key() {
    const auto pem = read_whole(paths_.log_key);
    if (!pem || pem->empty())
        throw CommandFailed("sandbox " + id_ + " has no egress log key in " + paths_.log_key +
                            " (made by an older sandbox-local?)");
    auto key = commands::log_key_from_pem(*pem);
    if (!key)
        throw CommandFailed("the egress log key in " + paths_.log_key +
                            " is not an Ed25519 public key");
    return *key;
}

void LocalLogAccess::request_checkpoint() {
    if (!supervisor_running(paths_)) {
        const auto meta = read_meta(paths_.meta);
        if (meta && meta->suspended_at != 0) return;
        throw CommandFailed("sandbox " + id_ + " is not running");
    }
    std::string binary;
    try {
        binary = find_proxy_binary(getenv_);
    } catch (const std::exception& e) {
        throw CommandFailed(e.what());
    }
    const auto [code, last_line] =
        run_for_stderr({binary, "log", "checkpoint", "--state-dir", paths_.proxy_state});
    if (code != 0)
        throw CommandFailed(last_line.empty()
                                ? "egress-proxy log checkpoint exited " + std::to_string(code)
                                : last_line);
}

std::string LocalLogAccess::text() {
    auto text = read_whole(paths_.egress_log());
    if (!text) throw CommandFailed("no egress log at " + paths_.egress_log());
    return *text;
}

} // namespace osf::backends::local
