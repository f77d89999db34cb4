// The objects of one create, grouped in the order they are made, and the
// List that --dry-run prints.
#pragma once

#include "sandbox/sandbox_request.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace osf::kubernetes::manifests {

// A Kubernetes List of `items` (what kubectl create -f - and apply accept).
nlohmann::json kube_list(const nlohmann::json& items);

// Made first, alone: the SandboxClaim with its lifecycle. Everything after is
// made with the claim's reference in place (owner_references.hpp); agent-sandbox
// waits for its SandboxWarmPool, made last.
// `base_pod_template`: as sandbox_side_objects takes it (its image is the claim's).
nlohmann::json sandbox_claim_object(const sandbox::SandboxRequest& request,
                                    const nlohmann::json& base_pod_template);

// Then the Secret (made by kubectl from the variables and files), then these:
// the spec ConfigMap, the upstream CA ConfigMap (with OSF_UPSTREAM_CA_BUNDLE), the egress pod (its
// deadline at the lifetime's pods_end, counted from `now`), its Service and its NetworkPolicy.
nlohmann::json egress_side_objects(const sandbox::SandboxRequest& request, sandbox::WallTime now);

// Made once the proxy runs: the CA ConfigMap, SandboxTemplate (the pod
// template with its deadline from `now`) and SandboxWarmPool, whose appearance
// sets the claim's controller to work. `base_pod_template` is
// image_pod_template(...) or a SandboxTemplate's podTemplate.
nlohmann::json sandbox_side_objects(const sandbox::SandboxRequest& request,
                                    const nlohmann::json& base_pod_template,
                                    const std::string& ca_pem, sandbox::WallTime now);

// The Pod the controller will make from the sandbox's pod template, for a
// server-side dry run: Pod Security admission judges it before anything starts.
nlohmann::json sandbox_pod_probe(const sandbox::SandboxRequest& request,
                                 const nlohmann::json& base_pod_template);

// Everything, as --dry-run prints it: secret values as placeholders, the CA
// certificate empty.
nlohmann::json dry_run_list(const sandbox::SandboxRequest& request,
                            const nlohmann::json& base_pod_template);

} // namespace osf::kubernetes::manifests
