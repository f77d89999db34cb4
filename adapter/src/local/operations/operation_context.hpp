// What every operation of sandbox-local's backend works with (LocalBackend
// holds one and passes it to the free functions of operations/): the caller's
// environment, signals and clock, the executable started as the supervisor,
// and the state root, found on first use.
#pragma once

#include "local/state/local_layout.hpp"
#include "sandbox/settings.hpp"

#include <chrono>
#include <functional>
#include <string>
#include <utility>

namespace osf::local {

struct LocalBackendOptions {
    sandbox::EnvLookup getenv;
    std::function<int()> pending_signal;
    std::function<std::chrono::system_clock::time_point()> wall_clock;
    std::string self_executable;           // started as the supervisor
    std::string program = "sandbox-local"; // the prefix of warnings
};

namespace operations {

struct OperationContext {
    explicit OperationContext(LocalBackendOptions given) : options(std::move(given)) {}

    LocalBackendOptions options;

    // The state root (OSF_SANDBOX_STATE_DIR, or the caller's default).
    const std::string& root();
    // The paths of sandbox `id`; CommandFailed when it does not exist.
    SandboxPaths existing(const std::string& id);

private:
    std::string root_;
};

} // namespace operations
} // namespace osf::local
