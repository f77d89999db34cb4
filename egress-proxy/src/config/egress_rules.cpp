#include "config/egress_rules.hpp"

namespace osf::config {

namespace {

std::map<std::string, mcp::ServerPolicy, std::less<>> mcp_policies_of(const osf::Spec& spec,
                                                                      const Limits& limits) {
    std::map<std::string, mcp::ServerPolicy, std::less<>> policies;
    for (const auto& server : spec.mcp) {
        mcp::ServerPolicy p;
        p.name = server.name;
        p.tools.insert(server.tools.begin(), server.tools.end());
        for (const auto& tool : server.tool_rules)
            p.tool_arguments.emplace(tool.name, mcp::compile_tool_arguments(server.name, tool));
        p.max_message_bytes = limits.max_mcp_message_bytes;
        policies.emplace(server.name, std::move(p));
    }
    return policies;
}

} // namespace

const mcp::ServerPolicy* EgressRules::mcp_policy(std::string_view server) const {
    const auto it = mcp_policies.find(server);
    return it == mcp_policies.end() ? nullptr : &it->second;
}

std::shared_ptr<const EgressRules> make_egress_rules(std::string spec_text, osf::Spec spec,
                                                     hosts::HostAliases aliases,
                                                     const Limits& limits,
                                                     std::uint64_t generation) {
    auto mcp_policies = mcp_policies_of(spec, limits);
    policy::Policy policy(spec, aliases);
    return std::make_shared<const EgressRules>(EgressRules{std::move(spec_text), std::move(spec),
                                                           std::move(aliases), std::move(policy),
                                                           std::move(mcp_policies), generation});
}

} // namespace osf::config
