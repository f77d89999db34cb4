// sandbox-kubernetes copy: one side is a sandbox's path, the other a local
// path. Uses kubectl cp (tar).
#pragma once

#include "commands/copy_endpoint.hpp"
#include "kubernetes/operation_context.hpp"

namespace osf::kubernetes {

// Exactly one of `from` and `to` has an ID (the command layer checked it).
void copy_files(OperationContext& context, const commands::CopyEndpoint& from,
                const commands::CopyEndpoint& to);

} // namespace osf::kubernetes
