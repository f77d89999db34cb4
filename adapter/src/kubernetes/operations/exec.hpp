// sandbox-kubernetes exec: a command in the sandbox pod, through kubectl exec.
#pragma once

#include "commands/exec_timeout.hpp"
#include "kubernetes/operation_context.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace osf::kubernetes {

struct ExecOutcome {
    int exit_code = 0;
    bool timed_out = false; // stopped at the timeout (exit_code 137)
};

// The command's own exit code. At the timeout, or on SIGINT/SIGTERM
// (Interrupted), every process it started in the sandbox is stopped first.
ExecOutcome exec_in_sandbox(OperationContext& context, const std::string& id,
                            const std::vector<std::string>& command, bool terminal,
                            std::chrono::seconds timeout);

} // namespace osf::kubernetes
