// The objects of one create, grouped in the order they are made, and the
// List that --dry-run prints.
#pragma once

#include "manifests/sandbox_request.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace osf::manifests {

// A Kubernetes List of `items` (what kubectl create -f - and apply accept).
nlohmann::json kube_list(const nlohmann::json& items);

// Made first, alone: the spec ConfigMap (spec_config_map), then the Secret
// owned by it (made by kubectl from the variables and files), then these: the
// egress pod (activeDeadlineSeconds: the maximum lifetime), its Service and
// its NetworkPolicy.
nlohmann::json egress_side_objects(const SandboxRequest& request);

// Made once the proxy runs: the CA ConfigMap, SandboxTemplate, SandboxWarmPool
// and SandboxClaim (with its lifecycle; the pod template with its deadline). `base_pod_template` is
// image_pod_template(...) or a SandboxTemplate's podTemplate.
nlohmann::json sandbox_side_objects(const SandboxRequest& request,
                                    const nlohmann::json& base_pod_template,
                                    const std::string& ca_pem);

// The Pod the controller will make from the sandbox's pod template, for a
// server-side dry run: Pod Security admission judges it before anything starts.
nlohmann::json sandbox_pod_probe(const SandboxRequest& request,
                                 const nlohmann::json& base_pod_template);

// Everything, as --dry-run prints it: secret values as placeholders, the CA
// certificate empty.
nlohmann::json dry_run_list(const SandboxRequest& request, const nlohmann::json& base_pod_template);

} // namespace osf::manifests
