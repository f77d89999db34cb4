#include "commands/command_errors.hpp"
#include "commands/exec_timeout.hpp"
#include "local/copy_out.hpp"
#include "local/exec_client.hpp"
#include "local/exec_protocol.hpp"
#include "local/host_ids.hpp"
#include "local/local_backend.hpp"
#include "local/sandbox_store.hpp"
#include "local/template_choice.hpp"
#include "local/unix_socket.hpp"
#include "process/spawn.hpp"

#include <filesystem>

namespace osf::local {

using commands::CommandFailed;

sandbox::ExecResult LocalBackend::run_in_sandbox(const std::string& id,
                                                 const std::vector<std::string>& command, int in,
                                                 int out, int err, bool terminal,
                                                 std::optional<std::chrono::seconds> timeout) {
    const SandboxPaths paths = existing(id);
    if (!supervisor_running(paths)) {
        const auto meta = read_meta(paths.meta);
        if (meta && meta->suspended_at != 0)
            throw CommandFailed("sandbox " + id + " is suspended (resume starts it again)");
        throw CommandFailed("sandbox " + id +
                            " is not running (its supervisor is gone; gc "
                            "removes it)");
    }
    Fd connection;
    try {
        connection = connect_unix(paths.control);
    } catch (const std::exception& e) {
        throw CommandFailed("sandbox " + id + " does not answer: " + e.what());
    }
    ExecMessage message;
    message.command = command;
    message.terminal = terminal;
    if (auto term = options_.getenv("TERM")) message.term = *term;
    const ExecOutcome outcome =
        run_exec(connection.get(), message, {in, out, err}, timeout, options_.pending_signal);
    if (outcome.signal != 0) throw commands::Interrupted(outcome.signal);
    if (outcome.timed_out) return {commands::kExitExecTimeout, true};
    if (outcome.exit_code) return {*outcome.exit_code, false};
    throw CommandFailed("sandbox " + id + " went away during exec");
}

sandbox::ExecResult LocalBackend::exec(const sandbox::ExecRequest& request) {
    return run_in_sandbox(request.id, request.command, 0, 1, 2, request.terminal, request.timeout);
}

int LocalBackend::run_to_end(const std::string& id, const std::vector<std::string>& command, int in,
                             int out, int err) {
    return run_in_sandbox(id, command, in, out, err, false, std::nullopt).exit_code;
}

} // namespace osf::local
