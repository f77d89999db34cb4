// What the claim tests share: the test clock and a SandboxClaim as the API
// server returns it.
#pragma once

#include "sandbox/lifetime.hpp"

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

namespace osf::testing {

// 2026-11-29T19:00:00Z
inline const sandbox::WallTime kNow{std::chrono::seconds(1795978800)};

inline nlohmann::json claim(const std::string& id, const std::string& created,
                            const std::string& expires) {
    nlohmann::json object = {{"kind", "SandboxClaim"},
                             {"metadata",
                              {{"name", "osf-sandbox-" + id},
                               {"uid", "uid-" + id},
                               {"creationTimestamp", created},
                               {"labels", {{"osf.sandbox.id", id}}}}}};
    if (!expires.empty()) object["spec"]["lifecycle"]["shutdownTime"] = expires;
    return object;
}

} // namespace osf::testing
