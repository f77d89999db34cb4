// A local sandbox's life from its stored state: what `list` calls it, what
// `gc` removes and why, and how long its supervisor may still wait before
// the expiry. Pure: times are seconds since the epoch.
#pragma once

#include "local/state/sandbox_store.hpp"

#include <chrono>
#include <optional>
#include <string>

namespace osf::local {

struct SandboxLiveness {
    bool supervisor_running = false;
    bool ready = false; // the supervisor said ready
};

// Ready | Starting | Suspended | Stopped (the supervisor is gone: killed, or
// the machine restarted; gc removes it).
std::string sandbox_status(const SandboxMeta& meta, const SandboxLiveness& liveness);

// Why gc removes the sandbox, or nullopt when it stays: a running supervisor
// keeps it (it ends the sandbox itself at the expiry); a suspended sandbox
// stays until its expiry.
std::optional<std::string> gc_reason(const SandboxMeta& meta, const SandboxLiveness& liveness,
                                     long long now);

// How long the supervisor waits before it ends the sandbox: zero once the
// expiry is reached, nullopt when the sandbox has none.
std::optional<std::chrono::milliseconds> time_to_expiry(const SandboxMeta& meta,
                                                        std::chrono::system_clock::time_point now);

} // namespace osf::local
