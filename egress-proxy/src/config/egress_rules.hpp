// What the proxy admits, built from one spec: the egress policy (with the
// host aliases) and the MCP server policies. Immutable: a policy change
// (allow, revoke) builds new rules from a new validated spec and the proxy
// swaps them in for what it admits next (net::ProxyRuntime::rules); requests
// already admitted finish under the rules they were admitted with.
#pragma once

#include "config/limits.hpp"
#include "mcp/mcp_filter.hpp"
#include "osf/spec.hpp"
#include "policy/policy.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace osf::config {

struct EgressRules {
    std::string spec_text; // the spec the rules come from, as read
    osf::Spec spec;
    hosts::HostAliases aliases; // OSF_SANDBOX_HOST_ALIASES: never changes while running
    policy::Policy policy;
    std::map<std::string, mcp::ServerPolicy, std::less<>> mcp_policies; // by server name
    // 0: the spec the proxy started with; each policy change adds one.
    std::uint64_t generation = 0;

    const mcp::ServerPolicy* mcp_policy(std::string_view server) const;
};

std::shared_ptr<const EgressRules> make_egress_rules(std::string spec_text, osf::Spec spec,
                                                     hosts::HostAliases aliases,
                                                     const Limits& limits,
                                                     std::uint64_t generation);

} // namespace osf::config
