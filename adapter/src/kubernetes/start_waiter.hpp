// Waits for pods and the claim to become ready, polling with kubectl get,
// printing progress to stderr, and failing fast on a start failure (an image
// that cannot be pulled, a container that exits, a pod no node can take)
// instead of waiting for the timeout.
#pragma once

#include "kubernetes/kubectl/kubectl.hpp"
#include "kubernetes/operation_context.hpp"

#include <chrono>
#include <set>
#include <string>

namespace osf::kubernetes {

class StartWaiter {
public:
    StartWaiter(OperationContext& context, kubectl::Kubectl& kube, std::chrono::seconds timeout);

    // Returns when the pod is ready. Throws CommandFailed naming the pod, the
    // container, the reason and Kubernetes' message; Interrupted on a signal.
    // With `owner_claim`, a pod that is missing is a start that failed when
    // that claim is gone (the garbage collector took the pod with it).
    void wait_pod_ready(const std::string& pod, const std::string& what,
                        const std::string& owner_claim = "");

    // Returns the sandbox pod's name when the claim is Ready; meanwhile also
    // watches `egress_pod` so that a proxy that dies fails the start.
    std::string wait_claim_ready(const std::string& claim, const std::string& egress_pod);

    // Returns when the sandbox pod is isolated on the network: the
    // NetworkPolicy agent-sandbox makes from `sandbox_template` exists, or a
    // default-deny of the namespace covers every sandbox pod
    // (manifests/network_isolation.hpp). Fails at the start timeout.
    void wait_network_policy(const std::string& sandbox_template);

    // Whether the sandbox's spec names a user: a Pod Security refusal about
    // root then needs no hint about root mode.
    void set_spec_has_user(bool has_user) { has_user_ = has_user; }

private:
    void check_pod(const std::string& pod, const std::string& what);
    void check_claim_exists(const std::string& claim);
    // Remembers why `pod` (already read) waits, for progress and the timeout.
    // Throws CommandFailed when the scheduler has no node for it and nothing
    // (a claim still binding, a node being added) can change that.
    void note_cause(const std::string& pod, const nlohmann::json& object, const std::string& what);
    // The Events about an object of `kind`, as kubectl lists them; empty when
    // they cannot be read.
    nlohmann::json events_about(const std::string& kind, const std::string& name);
    void progress(const std::string& line);
    void pause(const std::string& waiting_for);

    OperationContext& context_;
    kubectl::Kubectl& kube_;
    std::chrono::seconds timeout_;
    std::chrono::steady_clock::time_point deadline_;
    std::set<std::string> printed_; // progress lines already printed, each printed once
    std::string cause_;             // "pod P not scheduled: ...", the last seen; empty when none
    bool has_user_ = false;
};

} // namespace osf::kubernetes
