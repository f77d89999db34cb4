#include "local/operations/exec.hpp"

#include "commands/command_errors.hpp"
#include "commands/exec_timeout.hpp"
#include "local/operations/in_sandbox.hpp"
#include "process/spawn.hpp"

#include <filesystem>
#include <variant>

namespace osf::local::operations {

using commands::CommandFailed;

sandbox::ExecResult exec(OperationContext& context, const sandbox::ExecRequest& request) {
    const ExecOutcome outcome =
        run_in_sandbox(context, request.id, request.command, {}, request.terminal, request.timeout);
    if (outcome.timed_out) return {commands::kExitExecTimeout, true};
    if (outcome.exit_code) return {*outcome.exit_code, false};
    throw CommandFailed("sandbox " + request.id + " went away during exec");
}

} // namespace osf::local::operations
