// `list` on a cluster: one row per sandbox ID found among the adapter's
// objects, from their labels and status.
#pragma once

#include "kubernetes/manifests/pod_status.hpp"
#include "sandbox/lifetime.hpp"
#include "sandbox/sandbox_list.hpp"

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace osf::kubernetes::manifests {

// `items`: claims, templates, pods and ConfigMaps labelled by the adapter
// (the spec ConfigMap gives a row its policy). Sorted by creation time,
// oldest first.
std::vector<sandbox::SandboxRow> sandbox_rows(const nlohmann::json& items,
                                              std::chrono::system_clock::time_point now);

// sandbox_rows one object at a time, as they stream in: what a row needs is
// kept per ID, never the objects (at thousands of sandboxes even cut-down
// claims and templates are tens of MiB).
class SandboxRowsBuilder {
public:
    void add(const nlohmann::json& item);
    // A claim added names no image (made before claims carried
    // kImageAnnotation): its row's image is in its template.
    bool needs_templates() const;
    std::vector<sandbox::SandboxRow> rows(std::chrono::system_clock::time_point now) const;

private:
    struct Found {
        std::string created;
        bool has_claim = false;
        ClaimStatus claim;
        std::string image;
        std::optional<sandbox::WallTime> expires;
        bool suspended = false;
        std::map<std::string, std::string> labels;
    };
    std::map<std::string, Found> found_;
    std::map<std::string, nlohmann::json> policies_; // by ID, from the spec ConfigMaps
};

// The word `list` shows for a claim that is not Ready, from its Ready
// condition's reason (agent-sandbox's, forwarded from the Sandbox): Starting
// (DependenciesNotReady, SandboxNotReady, or none yet), Failed (PodFailed),
// Exited (PodSucceeded), Error (ReconcilerError and the claim's own
// refusals), Suspended, Expired; an unknown reason is shown as it is.
std::string status_word(const std::string& reason);

} // namespace osf::kubernetes::manifests
