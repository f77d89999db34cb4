// sandbox-kubernetes egress-log: the proxy's JSON-lines egress log, as the
// proxy prints it (--verify and --summary read it through KubeLogAccess).
#pragma once

#include "kubernetes/command_context.hpp"

#include <string>

namespace osf::kubernetes {

// kubectl streams the log to this process's stdout; with `follow` until the
// proxy stops, or Interrupted at SIGINT/SIGTERM (kubectl is stopped).
void print_egress_log(KubeContext& context, const std::string& id, bool follow, bool raw);

} // namespace osf::kubernetes
