// sandbox-kubernetes suspend: stops the sandbox's pods and keeps its
// persistent workspace; resume starts them again (resume_command.hpp).
#pragma once

#include "kubernetes/command_context.hpp"

#include <string>

namespace osf::kubernetes {

// False (nothing done) when it is already suspended.
bool suspend_sandbox(KubeContext& context, const std::string& id);

} // namespace osf::kubernetes
