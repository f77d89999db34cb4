// `sandbox-kubernetes doctor`: checks the cluster a new user points the
// adapter at (kubectl, agent-sandbox's API groups, the namespace and its Pod
// Security labels, every permission the commands use, a gc CronJob) and prints
// one line per check with the fix (kubernetes/manifests/doctor_checks).
#pragma once

#include "kubernetes/operation_context.hpp"

namespace osf::kubernetes {

// Prints the checks to context.out; returns 1 when a required one failed.
int run_doctor(OperationContext& context);

} // namespace osf::kubernetes
