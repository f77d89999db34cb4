// sandbox-kubernetes extend: moves the sandbox's expiry later (its claim's
// lifecycle.shutdownTime), within `max` of its creation.
#pragma once

#include "kubernetes/operation_context.hpp"
#include "sandbox/lifetime.hpp"

#include <chrono>
#include <string>

namespace osf::kubernetes {

// The new expiry; sandbox::LifetimeError past created + `max`.
sandbox::WallTime extend_sandbox(OperationContext& context, const std::string& id,
                                 std::chrono::seconds by, std::chrono::seconds max);

} // namespace osf::kubernetes
