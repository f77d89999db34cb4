// The error every failed kubectl call turns into: "kubectl <command> failed: "
// followed by kubectl's own message, as users of the adapter expect.
#pragma once

#include "kubernetes/kubectl/kubectl_runner.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace osf::kubernetes::kubectl {

class KubectlError : public std::runtime_error {
public:
    explicit KubectlError(const std::string& message) : std::runtime_error(message) {}
};

// kubectl's stderr as one line: each distinct line once, in order, joined by
// "; ", a repeated one with "(N times)", klog's "E1204 10:00:00.1 1 x.go:1] "
// headers left out.
std::string condensed_message(const std::string& text);

// "kubectl get failed: Error from server (Forbidden): ..." for a failed call;
// the command is the first argument, kubectl's stderr condensed.
std::string describe_failure(const std::vector<std::string>& args, const KubectlResult& result);

// Throws KubectlError when the result is a failure.
void check(const std::vector<std::string>& args, const KubectlResult& result);

} // namespace osf::kubernetes::kubectl
