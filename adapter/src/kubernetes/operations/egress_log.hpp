// sandbox-kubernetes egress-log: the proxy's JSON-lines egress log, as the
// proxy prints it (--verify and --summary read it through KubeLogAccess).
#pragma once

#include "kubernetes/operation_context.hpp"

#include <iosfwd>
#include <string>

namespace osf::kubernetes {

// kubectl's output is written to `out` as it arrives; with `follow` until the
// proxy stops, or Interrupted at SIGINT/SIGTERM (kubectl is stopped). Once
// `out` fails (a closed pipe) kubectl is stopped and nothing more is said.
void print_egress_log(OperationContext& context, const std::string& id, std::ostream& out,
                      bool follow, bool raw);

} // namespace osf::kubernetes
