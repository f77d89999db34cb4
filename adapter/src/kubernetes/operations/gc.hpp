// sandbox-kubernetes gc: what expired or failed sandboxes and parts left
// without a claim left behind (kubernetes/manifests/gc_plan), and removing it.
#pragma once

#include "kubernetes/manifests/gc_plan.hpp"
#include "kubernetes/operations/operation_context.hpp"

#include <string>
#include <vector>

namespace osf::kubernetes {

std::vector<manifests::GcRemoval> plan_gc(OperationContext& context);
void gc_remove_sandbox(OperationContext& context, const std::string& id);
// Several at once (remove_sandboxes): a few kubectl calls per batch.
void gc_remove_sandboxes(OperationContext& context, const std::vector<std::string>& ids);

} // namespace osf::kubernetes
