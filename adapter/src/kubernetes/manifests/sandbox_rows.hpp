// `list` on a cluster: one row per sandbox ID found among the adapter's
// objects, from their labels and status.
#pragma once

#include "sandbox/sandbox_list.hpp"

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace osf::kubernetes::manifests {

// `items`: claims, templates, pods and ConfigMaps labelled by the adapter
// (the spec ConfigMap gives a row its policy). Sorted by creation time,
// oldest first.
std::vector<sandbox::SandboxRow> sandbox_rows(const nlohmann::json& items,
                                              std::chrono::system_clock::time_point now);

// The word `list` shows for a claim that is not Ready, from its Ready
// condition's reason (agent-sandbox's, forwarded from the Sandbox): Starting
// (DependenciesNotReady, SandboxNotReady, or none yet), Failed (PodFailed),
// Exited (PodSucceeded), Error (ReconcilerError and the claim's own
// refusals), Suspended, Expired; an unknown reason is shown as it is.
std::string status_word(const std::string& reason);

} // namespace osf::kubernetes::manifests
