// Running host programs (tar, buildah, cp, egress-proxy log) from the CLI,
// outside any sandbox, through process::spawn: each gets the standard streams
// named here and no other descriptor of the CLI's.
#pragma once

#include <string>
#include <sys/types.h>
#include <vector>

namespace osf::local {

// Starts argv (looked up in PATH) with `in`, `out` and `err` as its standard
// streams and host_program_environment's variables (host_environment.hpp);
// returns its PID. CommandFailed when it cannot be started.
pid_t spawn_host(const std::vector<std::string>& argv, int in, int out, int err = 2);

// This process's environment, "NAME=value" each.
std::vector<std::string> caller_environment();

// Waits for the program; its exit code (128 + N when signal N ended it).
int wait_exit(pid_t pid);

// Which of the program's outputs run_capturing reads.
enum class Captured { stdout_text, stderr_text };

struct CapturedRun {
    int exit_code = 0;
    std::string text; // without its trailing newlines
};

// Runs argv to its end and reads one of its outputs. For stdout_text, stdin
// is /dev/null and stderr the CLI's own; for stderr_text, stdin and stdout
// are /dev/null.
CapturedRun run_capturing(const std::vector<std::string>& argv, Captured which);

} // namespace osf::local
