// Fuzz target: the spec validator (osf::parse_spec) on arbitrary text. Beyond
// not crashing, an accepted spec must be one the proxy can enforce: every
// egress and MCP host canonicalises, the policy built from it lets those
// destinations through, and every secret name can appear in a placeholder.
#include "fuzz_check.hpp"
#include "hosts/host.hpp"
#include "osf/spec.hpp"
#include "osf/spec_limits.hpp"
#include "policy/policy.hpp"

#include <algorithm>
#include <set>

namespace {

bool is_placeholder_name(const std::string& name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
}

void check_accepted(const osf::Spec& spec) {
    // `template` is optional (empty: the adapter's default); a given one is bounded.
    OSF_FUZZ_CHECK(spec.template_name.size() <= osf::spec_limits::max_template_length);
    const osf::policy::Policy policy(spec, {});
    for (const auto& rule : spec.egress) {
        OSF_FUZZ_CHECK(!rule.host.empty());
        OSF_FUZZ_CHECK(!rule.port || *rule.port != 0);
        const std::string_view host =
            rule.wildcard() ? std::string_view(rule.host).substr(2) : std::string_view(rule.host);
        const auto canonical = osf::hosts::canonical_host(host);
        OSF_FUZZ_CHECK(canonical.has_value());
        if (rule.wildcard()) {
            OSF_FUZZ_CHECK(!osf::hosts::host_as_address(*canonical));
            if (canonical->size() + 2 <= 253)
                OSF_FUZZ_CHECK(
                    policy.check_destination("x." + *canonical, rule.port.value_or(443)).allowed);
        } else {
            OSF_FUZZ_CHECK(policy.check_destination(*canonical, rule.port.value_or(443)).allowed);
        }
    }
    std::set<std::string> names;
    for (const auto& server : spec.mcp) {
        OSF_FUZZ_CHECK(names.insert(server.name).second);
        OSF_FUZZ_CHECK(server.scheme == "http" || server.scheme == "https");
        OSF_FUZZ_CHECK(server.port != 0);
        OSF_FUZZ_CHECK(server.path.starts_with("/"));
        const std::set<std::string> tools(server.tools.begin(), server.tools.end());
        OSF_FUZZ_CHECK(tools.size() == server.tools.size());
        const auto canonical = osf::hosts::canonical_host(server.host);
        OSF_FUZZ_CHECK(canonical.has_value());
        OSF_FUZZ_CHECK(policy.check_destination(*canonical, server.port).allowed);
        OSF_FUZZ_CHECK(policy.mcp_server_for(*canonical, server.port, server.path) != nullptr);
    }
    for (const auto& [name, ref] : spec.secrets) {
        OSF_FUZZ_CHECK(is_placeholder_name(name));
        OSF_FUZZ_CHECK(!ref.target.empty());
    }
    // A user is never root and always in Kubernetes' range; storage is a quantity.
    if (spec.user) {
        OSF_FUZZ_CHECK(spec.user->uid >= 1 && spec.user->uid <= 2147483647);
        OSF_FUZZ_CHECK(spec.user->gid >= 0 && spec.user->gid <= 2147483647);
    }
    if (spec.storage) OSF_FUZZ_CHECK(!spec.storage->empty() && spec.storage->size() <= 32);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto result = osf::parse_spec(osf::fuzz::as_text(data, size));
    OSF_FUZZ_CHECK(result.ok() == result.spec.has_value());
    for (const auto& error : result.errors) {
        OSF_FUZZ_CHECK(error.path.starts_with("$"));
        OSF_FUZZ_CHECK(!error.message.empty());
    }
    if (result.spec) check_accepted(*result.spec);
    return 0;
}
