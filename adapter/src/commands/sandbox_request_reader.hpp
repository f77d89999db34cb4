// Reading a spec file into everything a sandbox is started from: the spec
// validated, the variables read, every secret checked and a new ID. Shared by
// every backend's create; nothing here starts anything.
#pragma once

#include "manifests/sandbox_request.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <string>

namespace osf::commands {

using RandomBytes = std::function<std::array<std::uint8_t, 6>()>;

// Throws UsageError (exit 2) for an unreadable or invalid spec, an invalid
// variable or a secret that cannot be resolved.
manifests::SandboxRequest read_sandbox_request(const std::string& spec_path,
                                               const manifests::EnvLookup& getenv,
                                               const manifests::FileExists& file_exists,
                                               const RandomBytes& random_bytes);

} // namespace osf::commands
