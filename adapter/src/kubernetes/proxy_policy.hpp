// allow and revoke on a running sandbox: the egress proxy's `policy`
// subcommand, run in the egress pod through `kubectl exec -i` (the new spec on
// stdin; the admin port and its token stay inside the pod), and what its
// ending means. Pure: the command line and the reading of kubectl's result.
#pragma once

#include "kubernetes/kubectl/kubectl_runner.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace osf::kubernetes {

// The proxy's command line in its container: policy --state-dir ... --by BY.
std::vector<std::string> proxy_policy_command(const std::string& by);

struct ProxyPolicyAnswer {
    enum class Outcome {
        applied,    // the proxy runs the new policy (exit 0)
        refused,    // the proxy answered no (exit 2: 400 or 409); nothing changed
        unreachable // no answer (kubectl failed, no running proxy, exit 1); nothing changed
    };
    Outcome outcome = Outcome::unreachable;
    std::uint64_t generation = 0; // applied: the proxy's policy number
    std::string reason;           // refused, unreachable: one line, the proxy's or kubectl's
};

// `result` is kubectl exec's: the remote command's exit code is kubectl's,
// with "command terminated with exit code N" as kubectl's last stderr line;
// any other failure is kubectl's own.
ProxyPolicyAnswer read_proxy_policy_answer(const kubectl::KubectlResult& result);

} // namespace osf::kubernetes
