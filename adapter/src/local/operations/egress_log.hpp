// egress-log: the sandbox's egress log, read from the proxy's state
// directory (followed while it runs), and access to it for verify and report.
#pragma once

#include "local/operations/operation_context.hpp"
#include "sandbox/backend.hpp"

#include <memory>
#include <ostream>

namespace osf::local::operations {

void egress_log(OperationContext& context, const std::string& id, std::ostream& out, bool follow,
                bool raw);
std::unique_ptr<sandbox::EgressLogAccess> egress_log_access(OperationContext& context,
                                                            const std::string& id);

} // namespace osf::local::operations
