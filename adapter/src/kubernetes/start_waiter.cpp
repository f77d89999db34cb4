#include "kubernetes/start_waiter.hpp"

#include "commands/command_errors.hpp"
#include "kubernetes/manifests/network_isolation.hpp"
#include "kubernetes/manifests/pod_security_refusal.hpp"
#include "kubernetes/manifests/pod_status.hpp"
#include "kubernetes/manifests/resources.hpp"

#include <ostream>

namespace osf::kubernetes {

StartWaiter::StartWaiter(OperationContext& context, kubectl::Kubectl& kube,
                         std::chrono::seconds timeout)
    : context_(context), kube_(kube), timeout_(timeout), deadline_(context.now() + timeout) {}

void StartWaiter::progress(const std::string& line) {
    // Once each: a wait polls a pod and its claim in turn, whose lines would
    // otherwise alternate and repeat every poll until the timeout.
    if (!printed_.insert(line).second) return;
    context_.err << line << "\n" << std::flush;
}

void StartWaiter::pause(const std::string& waiting_for) {
    check_interrupted(context_);
    if (context_.now() >= deadline_)
        throw commands::CommandFailed(
            "timed out after " + std::to_string(timeout_.count()) + "s waiting for " + waiting_for +
            " (OSF_SANDBOX_START_TIMEOUT)" + (cause_.empty() ? "" : ": " + cause_));
    context_.sleep(context_.poll_interval);
    check_interrupted(context_);
}

namespace {

[[noreturn]] void fail_start(const std::string& what, const std::string& pod,
                             const manifests::StartFailure& failure) {
    throw commands::CommandFailed(what + " did not start: pod " + pod + ", container " +
                                  failure.container + ": " + failure.reason +
                                  (failure.message.empty() ? "" : ": " + failure.message));
}

} // namespace

nlohmann::json StartWaiter::events_about(const std::string& kind, const std::string& name) {
    kubectl::KubectlCall call;
    call.args = {"get",
                 "events",
                 "--namespace",
                 kube_.ns(),
                 "--field-selector",
                 "involvedObject.kind=" + kind + ",involvedObject.name=" + name,
                 "-o",
                 "json"};
    // Events are a hint: a cluster that does not let us read them still gets the phase.
    const auto result = kube_.runner().run(call);
    if (!result.ok()) return nlohmann::json::object();
    return nlohmann::json::parse(result.out, nullptr, false);
}

void StartWaiter::note_cause(const std::string& pod, const nlohmann::json& object,
                             const std::string& what) {
    const auto cause = manifests::pod_pending_cause(object);
    if (!cause) {
        if (cause_.rfind("pod " + pod + " ", 0) == 0) cause_.clear();
        return;
    }
    cause_ = "pod " + pod + " " + *cause;
    // A claim that does not bind is the usual reason a pod with one is not
    // scheduled; it may yet bind (a slow provisioner), so that waits.
    bool claims_bound = true;
    for (const auto& name : manifests::pod_claim_names(object))
        if (const auto pvc = kube_.get(manifests::kPersistentVolumeClaims, name))
            if (const auto problem = manifests::claim_binding_problem(
                    *pvc, events_about("PersistentVolumeClaim", name))) {
                cause_ += "; " + *problem;
                claims_bound = false;
            }
    // No node fits (resources, taints, affinity): the scheduler retries, but
    // nothing changes that within a start timeout unless the cluster
    // autoscaler is adding a node for this pod.
    if (claims_bound && manifests::pod_unschedulable(object) &&
        !manifests::scale_up_triggered(events_about("Pod", pod)))
        throw commands::CommandFailed(what + " did not start: " + cause_);
    progress(cause_);
}
void StartWaiter::check_pod(const std::string& pod, const std::string& what) {
    const auto object = kube_.get(manifests::kPods, pod);
    if (!object) return;
    if (auto failure = manifests::pod_start_failure(*object)) fail_start(what, pod, *failure);
    note_cause(pod, *object, what);
}

namespace {

[[noreturn]] void claim_gone(const std::string& claim) {
    throw commands::CommandFailed("SandboxClaim " + claim +
                                  " disappeared (its lifetime ended, or it was deleted)");
}

} // namespace

void StartWaiter::check_claim_exists(const std::string& claim) {
    if (!kube_.get(manifests::kSandboxClaims, claim)) claim_gone(claim);
}

void StartWaiter::wait_pod_ready(const std::string& pod, const std::string& what,
                                 const std::string& owner_claim) {
    for (;;) {
        check_interrupted(context_);
        const auto object = kube_.get(manifests::kPods, pod);
        if (!object) {
            if (!owner_claim.empty()) check_claim_exists(owner_claim);
            progress(what + " " + pod + ": not created yet");
        } else if (auto failure = manifests::pod_start_failure(*object)) {
            fail_start(what, pod, *failure);
        } else if (manifests::pod_ready(*object)) {
            progress(what + " " + pod + ": ready");
            return;
        } else {
            progress(what + " " + pod + ": " + manifests::pod_progress(*object));
            note_cause(pod, *object, what);
        }
        pause(what + " " + pod);
    }
}

void StartWaiter::wait_network_policy(const std::string& sandbox_template) {
    const std::string own = manifests::template_network_policy_name(sandbox_template);
    for (;;) {
        check_interrupted(context_);
        if (kube_.get(manifests::kNetworkPolicies, own)) {
            progress("sandbox network policy " + own + ": in place");
            return;
        }
        // Not made yet: a default-deny of the namespace isolates the pod meanwhile.
        kubectl::KubectlCall list;
        list.args = {"get", "networkpolicies", "--namespace", kube_.ns(), "-o", "json"};
        const auto listed = kube_.runner().run(list);
        if (listed.ok()) {
            const auto policies = nlohmann::json::parse(listed.out, nullptr, false);
            if (const auto deny = manifests::default_deny_policy(policies)) {
                progress("sandbox network policy " + own + ": not made yet; NetworkPolicy " +
                         *deny + " denies the sandbox's traffic meanwhile");
                return;
            }
        }
        cause_ = "NetworkPolicy " + own +
                 " does not exist (agent-sandbox's controller makes it from the SandboxTemplate) "
                 "and no default-deny NetworkPolicy covers sandbox pods: the sandbox would run "
                 "with no network isolation";
        progress("sandbox network policy " + own + ": waiting for agent-sandbox to make it");
        pause("the sandbox's NetworkPolicy " + own);
    }
}

std::string StartWaiter::wait_claim_ready(const std::string& claim, const std::string& egress_pod) {
    for (;;) {
        check_interrupted(context_);
        check_pod(egress_pod, "egress proxy");
        const auto object = kube_.get(manifests::kSandboxClaims, claim);
        if (!object) claim_gone(claim);
        const auto status = manifests::claim_status(*object);
        const std::string pod = status.sandbox_name.empty() ? claim : status.sandbox_name;
        check_pod(pod, "sandbox");
        if (status.ready) {
            progress("sandbox " + pod + ": ready");
            return pod;
        }
        // Pod Security admission refused the pod the controller made: waiting
        // cannot help.
        if (status.message.find("violates PodSecurity") != std::string::npos)
            throw commands::CommandFailed(
                "the sandbox's pod was refused: " +
                manifests::pod_security_refusal(status.message, has_user_));
        std::string line = "sandbox " + claim + ": ";
        line += status.reason.empty() ? "waiting for the controller" : status.reason;
        if (!status.message.empty()) line += " (" + status.message + ")";
        progress(line);
        pause("sandbox " + claim);
    }
}

} // namespace osf::kubernetes
