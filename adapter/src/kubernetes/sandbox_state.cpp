#include "kubernetes/sandbox_state.hpp"

#include "commands/command_errors.hpp"
#include "kubernetes/manifests/claim_lifetime.hpp"
#include "kubernetes/manifests/names.hpp"
#include "kubernetes/manifests/pod_status.hpp"
#include "kubernetes/manifests/resources.hpp"
#include "kubernetes/manifests/suspension.hpp"
#include "kubernetes/sandbox_lookup.hpp"
#include "sandbox/labels.hpp"
#include "sandbox/lifetime.hpp"

namespace osf::kubernetes {

SandboxState find_sandbox_state(kubectl::Kubectl& kube, const std::string& id) {
    SandboxState state;
    state.claim = named_or_no_sandbox(kube, manifests::kSandboxClaims, id);
    state.sandbox_name = manifests::claim_status(state.claim).sandbox_name;
    if (state.sandbox_name.empty()) state.sandbox_name = manifests::sandbox_name(id);
    const auto sandbox = kube.get(manifests::kSandboxes, state.sandbox_name);
    if (!sandbox)
        throw commands::CommandFailed("sandbox " + id + " has no Sandbox " + state.sandbox_name +
                                      " yet (still starting?)");
    state.sandbox = *sandbox;
    return state;
}

namespace {

void merge_patch(kubectl::Kubectl& kube, const std::string& resource, const std::string& name,
                 const nlohmann::json& body) {
    kubectl::KubectlCall call;
    call.args = {"patch",  resource, name, "--namespace", kube.ns(),
                 "--type", "merge",  "-p", body.dump()};
    kube.run_checked(call);
}

} // namespace

void set_operating_mode(kubectl::Kubectl& kube, const SandboxState& state,
                        const std::optional<std::string>& suspended_at) {
    const std::string claim = state.claim["metadata"]["name"].get<std::string>();
    // Suspending: the claim says so first; resuming: last. `list` never shows
    // a running sandbox as suspended for long, nor the other way round.
    if (suspended_at)
        merge_patch(kube, manifests::kSandboxClaims, claim,
                    manifests::suspended_patch(suspended_at));
    merge_patch(kube, manifests::kSandboxes, state.sandbox_name,
                manifests::operating_mode_patch(!suspended_at.has_value()));
    if (!suspended_at)
        merge_patch(kube, manifests::kSandboxClaims, claim,
                    manifests::suspended_patch(std::nullopt));
}

void bound_next_pod(kubectl::Kubectl& kube, const SandboxState& state,
                    std::chrono::system_clock::time_point now) {
    if (const auto pods_end = manifests::claim_pods_end(state.claim))
        merge_patch(kube, manifests::kSandboxes, state.sandbox_name,
                    manifests::sandbox_deadline_patch(state.sandbox, *pods_end, now));
}

} // namespace osf::kubernetes
