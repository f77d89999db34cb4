// A persistent workspace (the spec's `persistence`): /workspace and the home
// directory on a per-sandbox ReadWriteOnce claim that agent-sandbox makes
// from the SandboxTemplate's volumeClaimTemplates (named workspace-<sandbox>,
// owned by the Sandbox, so it lives while the sandbox is suspended and goes
// with its claim). Pure: JSON in, JSON out.
#pragma once

#include "sandbox/sandbox_request.hpp"

#include <nlohmann/json.hpp>

namespace osf::kubernetes::manifests {

inline constexpr const char* kWorkspaceSubPath = "workspace";
inline constexpr const char* kHomeSubPath = "home";

// The SandboxTemplate with volumeClaimTemplates [workspace] and its pod
// template mounting the claim at /workspace and the home directory kHomeDir
// (subPaths; HOME points there unless the spec's env sets it) instead of the
// workspace and home emptyDirs.
nlohmann::json with_persistence(nlohmann::json sandbox_template,
                                const sandbox::SandboxRequest& request);

// A pod template whose /workspace mount names a volume it lacks (copied from
// a persistent sandbox's template, e.g. by snapshot) gets that volume as an
// emptyDir, so a sandbox without `persistence` still starts.
nlohmann::json with_workspace_volume(nlohmann::json pod_template);

// True when a Sandbox (or SandboxTemplate) keeps its workspace on a claim.
bool has_persistent_workspace(const nlohmann::json& object);

} // namespace osf::kubernetes::manifests
