#include "local/operations/local_log_access.hpp"

#include "commands/command_errors.hpp"
#include "local/host/host_program.hpp"
#include "local/host/proxy_binary.hpp"
#include "local/protocol/unix_socket.hpp"
#include "local/state/sandbox_store.hpp"
#include "osf/whole_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <unistd.h>

namespace osf::local {

using commands::CommandFailed;

namespace {

// Runs the program with stdout discarded; its exit code and the last line it
// wrote to stderr.
std::pair<int, std::string> run_for_stderr(const std::vector<std::string>& argv) {
    const auto run = run_capturing(argv, Captured::stderr_text);
    const auto newline = run.text.rfind('\n');
    return {run.exit_code, newline == std::string::npos ? run.text : run.text.substr(newline + 1)};
}

} // namespace

LocalLogAccess::LocalLogAccess(SandboxPaths paths, std::string id, sandbox::EnvLookup getenv)
    : paths_(std::move(paths)), id_(std::move(id)), getenv_(std::move(getenv)) {}

sandbox::LogKey LocalLogAccess::key() {
    const auto pem = osf::read_whole_file(paths_.log_key);
    if (!pem || pem->empty())
        throw CommandFailed("sandbox " + id_ + " has no egress log key in " + paths_.log_key +
                            " (made by an older sandbox-local?)");
    auto key = sandbox::log_key_from_pem(*pem);
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
    auto text = osf::read_whole_file(paths_.egress_log());
    if (!text) throw CommandFailed("no egress log at " + paths_.egress_log());
    return *text;
}

} // namespace osf::local
