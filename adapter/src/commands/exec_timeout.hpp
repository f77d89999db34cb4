// exec --timeout: its value and what exec says when it is reached. Shared by
// every sandbox CLI.
#pragma once

#include "sandbox/settings.hpp"

#include <chrono>
#include <string>

namespace osf::commands {

// Exit code of an exec stopped at its timeout (128 + SIGKILL, as a shell
// reports a killed command).
inline constexpr int kExitExecTimeout = 137;

// --timeout's value, or OSF_SANDBOX_EXEC_TIMEOUT when empty; UsageError when
// it is not a duration. Shared with sandbox-local.
std::chrono::seconds exec_timeout(const std::string& timeout, const sandbox::Settings& settings);
// The line after the program's prefix when exec stopped its command at the timeout.
std::string exec_timed_out_message(std::chrono::seconds timeout);

} // namespace osf::commands
