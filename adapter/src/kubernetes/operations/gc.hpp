// sandbox-kubernetes gc: what expired or failed sandboxes and parts left
// without a claim left behind (kubernetes/manifests/gc_plan), and removing it.
#pragma once

#include "kubernetes/manifests/gc_plan.hpp"
#include "kubernetes/operation_context.hpp"

#include <string>
#include <vector>

namespace osf::kubernetes {

std::vector<manifests::GcRemoval> plan_gc(OperationContext& context);
void gc_remove_sandbox(OperationContext& context, const std::string& id);

} // namespace osf::kubernetes
