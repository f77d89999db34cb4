// sandbox-kubernetes extend: moves the sandbox's expiry later (its claim's
// lifecycle.shutdownTime), within `max` of its creation.
#pragma once

#include "commands/command_context.hpp"
#include "manifests/lifetime.hpp"

#include <chrono>
#include <string>

namespace osf::commands {

// The new expiry; manifests::LifetimeError past created + `max`.
manifests::WallTime extend_sandbox(CommandContext& context, const std::string& id,
                                   std::chrono::seconds by, std::chrono::seconds max);

} // namespace osf::commands
