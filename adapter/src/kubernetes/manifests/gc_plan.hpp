// What `gc` removes and why, decided from the adapter's objects alone: a pure
// function of what kubectl listed and the time, so every rule is table-tested.
#pragma once

#include "sandbox/lifetime.hpp"

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace osf::kubernetes::manifests {

struct GcRemoval {
    std::string id;
    std::string reason; // one line: "expired at ...", "egress pod ... Failed (...)", ...
};

// `items`: every object labelled managed-by sandbox-kubernetes (any kinds).
// A sandbox is removed when its claim's expiry has passed; when its egress or
// sandbox pod has failed or ended (phase Failed or Succeeded); when its claim
// has no SandboxWarmPool and its newest part is older than `grace` (a create
// killed midway: create makes the claim first and the warm pool last, so such
// a claim would otherwise hold its Secret until the expiry); or when it has no
// claim and its newest part is older than `grace` (left by a version that made
// the claim last). Sorted by ID.
std::vector<GcRemoval> gc_plan(const nlohmann::json& items, sandbox::WallTime now,
                               std::chrono::seconds grace);

} // namespace osf::kubernetes::manifests
