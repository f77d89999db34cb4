// What every subcommand of both CLIs runs with: the process's variables,
// files, output streams, clocks, signals and random bytes, and the backend that
// does the work. main() wires the real ones; unit tests substitute fakes. The
// Kubernetes backend's context is this one with kubectl added
// (kubernetes/operation_context.hpp): one object, not a copy.
#pragma once

#include "commands/command_errors.hpp"
#include "sandbox/backend.hpp"
#include "sandbox/settings.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

namespace osf::commands {

// The help texts that say where sandboxes live; the defaults are sandbox-local's.
struct CommandTexts {
    std::string create_dry_run = "Print what would be started (JSON) and start nothing";
    std::string snapshot =
        "Keep a copy of /workspace; prints a template name a spec can start from";
    std::string destroy_save_log =
        "First save the egress log to this new file (and its key to FILE.pub), signed to its "
        "last line and verified against the key stored when its proxy started; nothing is "
        "removed if that fails";
    std::string list = "List the sandbox IDs, one per line (-o wide: a table)";
    std::string egress_log_follow =
        "Keep printing lines as they are written, until the sandbox stops";
    std::string egress_log_verify =
        "Check the hash chain and signed checkpoints against the key stored when the proxy "
        "started: exit 0, or 1 naming the first line that does not hold";
    std::string gc = "Remove sandboxes whose supervisor is gone and suspended sandboxes past "
                     "their expiry; one line each: ID and why";
    std::string suspend =
        "Stop every process of a sandbox and keep its workspace (resume brings it back)";
};

struct CommandContext {
    std::string program; // the prefix of every error line: "<program>: "
    sandbox::EnvLookup getenv;
    sandbox::FileExists file_exists;
    std::ostream& out;
    std::ostream& err;
    std::function<std::chrono::steady_clock::time_point()> now;
    std::function<std::chrono::system_clock::time_point()> wall_clock;
    std::function<void(std::chrono::milliseconds)> sleep;
    // The signal (SIGINT, SIGTERM) received since start, 0 when none.
    std::function<int()> pending_signal;
    std::function<std::array<std::uint8_t, 6>()> random_bytes;
    // True when stdin and stdout are a terminal (exec then passes it on).
    bool terminal = false;
    // What does the work, and the help texts that say where it keeps sandboxes.
    sandbox::Backend* backend = nullptr;
    CommandTexts texts{};
    // Set by the subcommand that ran.
    int exit_code = 0;
};

// Throws Interrupted when a signal is pending.
inline void check_interrupted(const CommandContext& context) {
    check_interrupted(context.pending_signal);
}

} // namespace osf::commands
