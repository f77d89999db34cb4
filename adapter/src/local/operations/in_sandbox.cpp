#include "local/operations/in_sandbox.hpp"

#include "commands/command_errors.hpp"
#include "local/protocol/exec_protocol.hpp"
#include "local/protocol/unix_socket.hpp"
#include "local/state/sandbox_store.hpp"

#include <variant>

namespace osf::local::operations {

using commands::CommandFailed;

ExecOutcome run_in_sandbox(OperationContext& context, const std::string& id,
                           const std::vector<std::string>& command, const ExecStreams& streams,
                           bool terminal, std::optional<std::chrono::seconds> timeout) {
    const SandboxPaths paths = context.existing(id);
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
    if (auto term = context.options.getenv("TERM")) message.term = *term;
    const ExecOutcome outcome =
        run_exec(connection.get(), message, streams, timeout, context.options.pending_signal);
    if (outcome.signal != 0) throw commands::Interrupted(outcome.signal);
    return outcome;
}

CopyBounds copy_bounds_of(OperationContext& context, const std::string& id) {
    const auto meta = read_meta(context.existing(id).meta);
    const auto bounds = copy_bounds(meta ? meta->workspace_bytes : 0,
                                    context.options.getenv("OSF_SANDBOX_COPY_LIMIT"),
                                    context.options.getenv("OSF_SANDBOX_COPY_TIMEOUT"));
    if (const auto* error = std::get_if<std::string>(&bounds)) throw commands::UsageError(*error);
    return std::get<CopyBounds>(bounds);
}

int run_to_end(OperationContext& context, const std::string& id,
               const std::vector<std::string>& command, int in, int out, const CopyBounds& bounds) {
    ExecStreams streams{in, out, 2, bounds.bytes, true};
    const ExecOutcome outcome =
        run_in_sandbox(context, id, command, streams, false, bounds.timeout);
    if (outcome.over_limit)
        throw CommandFailed("copy: sandbox " + id + " sent more than " + shown_bytes(bounds.bytes) +
                            " (its storage, or OSF_SANDBOX_COPY_LIMIT); nothing was written");
    if (outcome.timed_out)
        throw CommandFailed("copy: sandbox " + id + " did not finish within " +
                            std::to_string(bounds.timeout.count()) +
                            " s (OSF_SANDBOX_COPY_TIMEOUT); nothing was written");
    if (outcome.exit_code) return *outcome.exit_code;
    throw CommandFailed("sandbox " + id + " went away during copy");
}

} // namespace osf::local::operations
