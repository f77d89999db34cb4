// Reading a spec file into everything a sandbox is started from: the spec
// validated, the variables read, every secret checked and a new ID. Shared by
// every backend's create; nothing here starts anything.
#pragma once

#include "sandbox/sandbox_request.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace osf::commands {

using RandomBytes = std::function<std::array<std::uint8_t, 6>()>;

// Throws UsageError (exit 2) for an unreadable or invalid spec, an invalid
// variable, a secret that cannot be resolved or a lifetime beyond the maximum
// (the expiry counts from `now`).
sandbox::SandboxRequest read_sandbox_request(const std::string& spec_path,
                                             const sandbox::EnvLookup& getenv,
                                             const sandbox::FileExists& file_exists,
                                             const RandomBytes& random_bytes,
                                             std::chrono::system_clock::time_point now);

} // namespace osf::commands
