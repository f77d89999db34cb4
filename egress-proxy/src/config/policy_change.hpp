// A change of what the sandbox may reach, asked for while the proxy runs
// (POST /policy on the admin port): the new spec's text and who asks. Pure:
// decides whether the change is allowed, builds the new rules and the egress
// log's policy lines; the admin listener and net::ProxyRuntime do the rest.
#pragma once

#include "config/egress_rules.hpp"
#include "config/limits.hpp"
#include "osf/policy_edit.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace osf::config {

// The body of POST /policy: {"spec": "<the new spec's JSON text>", "by": "<who asks>"}.
inline constexpr std::size_t max_policy_request_bytes = 2 * 1024 * 1024;
inline constexpr std::size_t max_by_bytes = 256;

struct PolicyChange {
    int status = 400;    // 200 applied (or nothing to change), 400 unreadable, 409 not live
    std::string message; // one line: why not (never a secret: specs hold references only)
    std::shared_ptr<const EgressRules> rules; // the new rules; null when nothing changes
    osf::policy_edit::Difference difference;
    std::string by;
};

// Reads the request and compares its spec with `current`'s: only `egress` and
// the declared MCP servers' `tools` may differ (secrets, servers and the rest
// need a new sandbox).
PolicyChange plan_policy_change(const EgressRules& current, std::string_view body,
                                const Limits& limits);

// The answer's body (JSON): generation, and what was allowed and revoked.
std::string policy_answer(const PolicyChange& change, std::uint64_t generation);

} // namespace osf::config
