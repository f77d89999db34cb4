// What suspend and resume both look up: the claim by the ID's label and the
// Sandbox agent-sandbox made for it.
#pragma once

#include "kubernetes/kubectl/kubectl.hpp"
#include "kubernetes/manifests/claim_lifetime.hpp"

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace osf::kubernetes {

struct SandboxState {
    nlohmann::json claim;
    nlohmann::json sandbox;
    std::string sandbox_name; // the Sandbox's and its pod's name
};

// CommandFailed "no sandbox <ID>" without a claim; CommandFailed when the
// controller has not made the Sandbox yet.
SandboxState find_sandbox_state(kubectl::Kubectl& kube, const std::string& id);

// Patches the Sandbox's spec.operatingMode, and the claim's suspended-at
// annotation that `list` reads (set to `suspended_at`, or removed).
void set_operating_mode(kubectl::Kubectl& kube, const SandboxState& state,
                        const std::optional<std::string>& suspended_at);

// Patches the Sandbox's pod template so that the pod it makes next ends at
// the claim's pods' deadline (manifests::sandbox_deadline_patch); nothing for
// a sandbox made before claims recorded one.
void bound_next_pod(kubectl::Kubectl& kube, const SandboxState& state,
                    std::chrono::system_clock::time_point now);

} // namespace osf::kubernetes
