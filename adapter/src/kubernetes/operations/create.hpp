// sandbox-kubernetes create: the objects of a checked request, and starting them.
#pragma once

#include "kubernetes/operation_context.hpp"
#include "sandbox/sandbox_request.hpp"

#include <iosfwd>
#include <nlohmann/json.hpp>

namespace osf::kubernetes {

// create --dry-run: every object as one Kubernetes List; touches no cluster. A
// template that names a SandboxTemplate is not read (a note on stderr says so).
nlohmann::json dry_run_objects(OperationContext& context, const sandbox::SandboxRequest& request);
// Starts the sandbox and returns once it is ready; removes everything made
// on any failure or interruption. Progress lines go to `progress`.
void create_sandbox(OperationContext& context, const sandbox::SandboxRequest& request,
                    std::ostream& progress);

} // namespace osf::kubernetes
