// describe (create --dry-run) and create: the spec's template resolved, the
// launch plan shown, or the sandbox's directory, host id, workspace and root
// made and its supervisor started (all removed again when a step fails).
#pragma once

#include "local/operations/operation_context.hpp"
#include "sandbox/sandbox_request.hpp"

#include <nlohmann/json.hpp>
#include <ostream>

namespace osf::local::operations {

nlohmann::json describe(OperationContext& context, const sandbox::SandboxRequest& request);
void create(OperationContext& context, const sandbox::SandboxRequest& request,
            std::ostream& progress);

} // namespace osf::local::operations
