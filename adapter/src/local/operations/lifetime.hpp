// extend, suspend, resume: a sandbox's expiry moved (its supervisor told),
// its supervisor stopped with the files kept, or started again.
#pragma once

#include "local/operations/operation_context.hpp"
#include "sandbox/backend.hpp"
#include "sandbox/lifetime.hpp"

#include <chrono>
#include <ostream>

namespace osf::local::operations {

sandbox::WallTime extend(OperationContext& context, const std::string& id, std::chrono::seconds by,
                         std::chrono::seconds max);
sandbox::StateChange suspend(OperationContext& context, const std::string& id);
sandbox::StateChange resume(OperationContext& context, const std::string& id,
                            std::ostream& progress);

} // namespace osf::local::operations
