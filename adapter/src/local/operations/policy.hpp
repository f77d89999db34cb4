// allow, revoke: the stored spec rewritten, then the running proxy told
// through its admin socket.
#pragma once

#include "local/operations/operation_context.hpp"
#include "sandbox/policy_changer.hpp"

namespace osf::local::operations {

sandbox::PolicyChangeResult change_policy(OperationContext& context, const std::string& id,
                                          const osf::policy_edit::Edit& edit,
                                          const std::string& by);

} // namespace osf::local::operations
