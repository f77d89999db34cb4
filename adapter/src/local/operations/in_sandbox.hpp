// What exec, copy and snapshot share: a command run in the
// sandbox through its supervisor's control socket, and the bounds of a copy.
#pragma once

#include "local/copy/copy_out_policy.hpp"
#include "local/operations/operation_context.hpp"
#include "local/protocol/exec_client.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace osf::local::operations {

// Runs a command in the sandbox; the CLI copies between the streams and
// the command's pipes (exec_client.hpp).
ExecOutcome run_in_sandbox(OperationContext& context, const std::string& id,
                           const std::vector<std::string>& command, const ExecStreams& streams,
                           bool terminal, std::optional<std::chrono::seconds> timeout);
// The bounds of a copy out of (or a snapshot of) the sandbox: its storage
// and the OSF_SANDBOX_COPY_* variables (UsageError for a bad value).
CopyBounds copy_bounds_of(OperationContext& context, const std::string& id);
// A step of a copy run in the sandbox: stdout to `out` bounded by
// bounds.bytes, stderr escaped to the CLI's, at most bounds.timeout. Its
// exit code; CommandFailed past a bound (the command is stopped).
int run_to_end(OperationContext& context, const std::string& id,
               const std::vector<std::string>& command, int in, int out, const CopyBounds& bounds);

} // namespace osf::local::operations
