// What `gc` removes and why, decided from the adapter's objects alone: a pure
// function of what kubectl listed and the time, so every rule is table-tested.
#pragma once

#include "sandbox/lifetime.hpp"

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace osf::kubernetes::manifests {

struct GcRemoval {
    std::string id;
    std::string reason; // one line: "expired at ...", "egress pod ... Failed (...)", ...
};

// `items`: objects labelled managed-by sandbox-kubernetes (any kinds); gc
// reads only those the rules need: every claim and warm pool, the pods that
// ended, and parts no claim owns (any other part goes with its claim).
// A sandbox is removed when its claim's expiry has passed; when its egress or
// sandbox pod has failed or ended (phase Failed or Succeeded); when its claim
// has no SandboxWarmPool and the newest of its objects read is older than
// `grace` (a create killed midway: create makes the claim first and the warm
// pool last, so such a claim would otherwise hold its Secret until the
// expiry); or when it has no claim and its newest part is older than `grace`
// (left by a version that made the claim last). Sorted by ID.
std::vector<GcRemoval> gc_plan(const nlohmann::json& items, sandbox::WallTime now,
                               std::chrono::seconds grace);

// The same decision taken one object at a time: `add` keeps of each object
// only what the rules above read (a few fields per sandbox), so at thousands
// of sandboxes gc holds neither the objects nor a list of them.
class GcPlanner {
public:
    void add(const nlohmann::json& item);
    std::vector<GcRemoval> removals(sandbox::WallTime now, std::chrono::seconds grace) const;

private:
    struct Parts {
        bool has_claim = false;
        bool has_pool = false;
        std::optional<sandbox::WallTime> expires;
        std::string ended_pod; // the first failed or ended pod, described
        std::optional<sandbox::WallTime> newest;
    };
    std::map<std::string, Parts> sandboxes_;
};

} // namespace osf::kubernetes::manifests
