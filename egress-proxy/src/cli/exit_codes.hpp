// egress-proxy's exit codes (egress-proxy/README.md, "Exit codes"), and the
// one place an exception becomes one.
#pragma once

#include <functional>
#include <iosfwd>

namespace osf::cli {

inline constexpr int exit_ok = 0;
// A runtime failure: nothing to print (no ca.crt, no egress log, no running
// proxy), a log that does not verify, a listener lost, any unexpected error.
inline constexpr int exit_failure = 1;
// Bad flags, configuration or input: one line on stderr, nothing was started.
inline constexpr int exit_usage = 2;

// Runs `command` and returns its exit code; an exception it lets out is not a
// usage error but an unexpected runtime failure: one line on `err`, exit_failure.
int exit_code_of(const std::function<int()>& command, std::ostream& err);

} // namespace osf::cli
