// The CLI's side of an exec (exec_protocol.hpp): no descriptor of the caller
// ever enters the sandbox. The command gets pipes (or, for a terminal, a pty)
// whose other ends the CLI holds, and the CLI copies between them and the
// caller's own streams: a file handed in as stdin, a copy's destination or
// the caller's terminal stay out of reach of the sandbox's processes. The
// exec ends when the command's exit code arrives: what is already in the
// pipes is copied out, and later output of processes the command left running
// is dropped (they get EPIPE).
#pragma once

#include "local/protocol/exec_protocol.hpp"

#include <chrono>
#include <functional>
#include <optional>

namespace osf::local {

struct ExecStreams {
    int in = 0;  // read by the CLI, copied to the command's stdin
    int out = 1; // the command's stdout copied here
    int err = 2; // the command's stderr copied here
    // The most bytes copied to `out` (0: no bound): past it the exec ends at
    // once (the connection closes, which kills the command) with
    // ExecOutcome::over_limit.
    unsigned long long out_limit = 0;
    // The command's stderr written with control bytes escaped (printable_text):
    // for the CLI's own steps (copy), whose stderr the caller reads as the CLI's.
    bool escape_err = false;
};

struct ExecOutcome {
    std::optional<int> exit_code; // nullopt: the sandbox went away
    bool timed_out = false;
    bool over_limit = false; // more than ExecStreams::out_limit bytes came
    int signal = 0;          // the signal that interrupted the exec (SIGINT, SIGTERM)
};

// Sends `message` on `connection` (connected to the sandbox's control socket)
// and runs the exec to its end. With message.terminal, `streams.in` must be
// the caller's terminal: it is put in raw mode for the exec and restored.
// At `timeout`, or when `pending_signal` returns a signal, the command is
// stopped (the agent sends TERM, waits the grace, sends KILL) and its answer
// awaited a bounded time.
ExecOutcome run_exec(int connection, const ExecMessage& message, const ExecStreams& streams,
                     std::optional<std::chrono::seconds> timeout,
                     const std::function<int()>& pending_signal);

} // namespace osf::local
