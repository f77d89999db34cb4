// sandbox-kubernetes destroy: removes every object labelled with the ID.
// Snapshots (labelled osf.snapshot.of) stay.
#pragma once

#include "kubernetes/operation_context.hpp"

#include <string>
#include <vector>

namespace osf::kubernetes {

// CommandFailed "no sandbox <ID>" when no object has the ID's label.
void check_sandbox_exists(OperationContext& context, const std::string& id);
// Deletes them (what is already gone is not an error).
void destroy_sandbox(OperationContext& context, const std::string& id);
// Several at once (remove_sandboxes): a few kubectl calls whatever their number.
void destroy_sandboxes(OperationContext& context, const std::vector<std::string>& ids);

} // namespace osf::kubernetes
