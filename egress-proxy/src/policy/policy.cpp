// The egress decision. Hosts reaching here should already be canonical; they
// are canonicalised again so that a caller's slip fails closed ("bad-host")
// rather than matching or missing by accident.
#include "policy/policy.hpp"

#include "hosts/host.hpp"
#include "osf/host_port.hpp"
#include "policy/url_path.hpp"

#include <algorithm>

namespace osf::policy {
namespace {

// Spec hosts are validated elsewhere; canonicalise anyway so "127.1" in the
// spec and "127.0.0.1" on the wire compare equal. A host that does not
// canonicalise is kept as written and simply never matches.
std::string canonical_rule_host(const std::string& host) {
    if (host.starts_with("*.")) {
        auto parent = hosts::canonical_host(std::string_view(host).substr(2));
        return parent ? "*." + *parent : host;
    }
    auto canonical = hosts::canonical_host(host);
    return canonical ? *canonical : host;
}

// "*.example.com" matches "a.example.com" and "a.b.example.com", not
// "example.com"; it never matches an IP literal.
bool host_matches(const std::string& pattern, std::string_view host) {
    if (!pattern.starts_with("*.")) return pattern == host;
    if (hosts::host_as_address(host)) return false;
    std::string_view suffix = std::string_view(pattern).substr(1); // ".example.com"
    return host.size() > suffix.size() && host.ends_with(suffix);
}

} // namespace

Policy::Policy(const osf::Spec& spec, hosts::HostAliases aliases)
    : egress_(spec.egress), mcp_(spec.mcp), tcp_(spec.tcp) {
    // hosts::parse_host_aliases gives canonical keys; a hand-built map may not.
    for (auto& [name, address] : aliases)
        if (auto canonical = hosts::canonical_host(name)) aliases_.emplace(*canonical, address);
    for (auto& rule : egress_) {
        rule.host = canonical_rule_host(rule.host);
        rules_of_entry_.push_back(rule.has_rules ? static_cast<int>(rules_.size()) : -1);
        if (rule.has_rules) rules_.emplace_back(rule, spec.audit);
    }
    for (auto& server : mcp_) {
        server.host = canonical_rule_host(server.host);
        if (server.path.empty()) server.path = "/";
    }
    for (auto& destination : tcp_)
        destination.host = canonical_rule_host(destination.host);
}

bool Policy::is_tcp_destination(std::string_view raw_host, std::uint16_t port) const {
    if (tcp_.empty()) return false;
    const auto host = hosts::canonical_host(raw_host);
    return host && std::any_of(tcp_.begin(), tcp_.end(), [&](const osf::TcpDestination& d) {
               return d.port == port && host_matches(d.host, *host);
           });
}

bool Policy::in_egress(std::string_view host, std::uint16_t port) const {
    return std::any_of(egress_.begin(), egress_.end(), [&](const osf::EgressRule& rule) {
        return host_matches(rule.host, host) && (!rule.port || *rule.port == port);
    });
}

bool Policy::named_literally(const std::string& host) const {
    return std::any_of(egress_.begin(), egress_.end(),
                       [&](const osf::EgressRule& rule) { return rule.host == host; }) ||
           std::any_of(mcp_.begin(), mcp_.end(),
                       [&](const osf::McpServer& server) { return server.host == host; }) ||
           std::any_of(tcp_.begin(), tcp_.end(),
                       [&](const osf::TcpDestination& d) { return d.host == host; });
}

Decision Policy::check_destination(std::string_view raw_host, std::uint16_t port) const {
    auto host = hosts::canonical_host(raw_host);
    if (!host) return Decision::refuse(RefusalReason::bad_host, "not a valid host name or address");
    if (port == 0)
        return Decision::refuse(RefusalReason::port_not_allowed, "port 0 is not allowed");
    if (in_egress(*host, port)) return Decision::allow();
    for (const auto& server : mcp_)
        if (server.host == *host && server.port == port) return Decision::allow();

    bool host_known =
        std::any_of(egress_.begin(), egress_.end(),
                    [&](const osf::EgressRule& rule) { return host_matches(rule.host, *host); }) ||
        std::any_of(mcp_.begin(), mcp_.end(),
                    [&](const osf::McpServer& server) { return server.host == *host; });
    if (host_known)
        return Decision::refuse(RefusalReason::port_not_allowed,
                                osf::host_port(*host, port) + " is not allowed: port " +
                                    std::to_string(port) + " is not in the egress list");
    return Decision::refuse(RefusalReason::host_not_allowed, *host + " is not in the egress list");
}

Decision Policy::check_address(std::string_view host,
                               const boost::asio::ip::address& address) const {
    auto alias = alias_for(host);
    if (alias && *alias == address) return Decision::allow();
    AddressClass c = classify(address);
    if (c == AddressClass::Public) return Decision::allow();
    auto canonical = hosts::canonical_host(host);
    // A private address (a pod, a service, the node's network) only for a host
    // the spec names itself: a wildcard would let any name under it, which DNS
    // may point anywhere, into the cluster.
    if (c == AddressClass::Private && canonical && named_literally(*canonical))
        return Decision::allow();
    std::string detail = (canonical ? *canonical : std::string("the host")) + " resolves to " +
                         address.to_string() + " (" + std::string(to_string(c)) + ")";
    if (c == AddressClass::Private)
        detail += ": only a host the spec names, not one matched by a wildcard, may reach it";
    return Decision::refuse(RefusalReason::destination_address, std::move(detail));
}

std::optional<boost::asio::ip::address> Policy::alias_for(std::string_view host) const {
    auto canonical = hosts::canonical_host(host);
    if (!canonical) return std::nullopt;
    auto it = aliases_.find(*canonical);
    if (it == aliases_.end()) return std::nullopt;
    return it->second;
}

bool Policy::substitutes_secrets(std::string_view host, std::uint16_t port) const {
    auto canonical = hosts::canonical_host(host);
    return canonical && in_egress(*canonical, port);
}

const osf::McpServer* Policy::mcp_server_for(std::string_view host, std::uint16_t port,
                                             std::string_view path) const {
    auto canonical = hosts::canonical_host(host);
    return canonical ? mcp_server_at(*canonical, port, path) : nullptr;
}

const osf::McpServer* Policy::mcp_server_at(const std::string& canonical, std::uint16_t port,
                                            std::string_view path) const {
    const osf::McpServer* best = nullptr;
    std::size_t best_length = 0;
    bool best_port = false;
    for (const auto& server : mcp_) {
        if (server.host != canonical || !path_is_under(path, server.path)) continue;
        std::string base = normalize_path(server.path);
        std::size_t length = base.size() > 1 && base.ends_with('/') ? base.size() - 1 : base.size();
        const bool same_port = server.port == port;
        if (!best || length > best_length || (length == best_length && same_port && !best_port)) {
            best = &server;
            best_length = length;
            best_port = same_port;
        }
    }
    if (best) return best;
    // A host:port that is only an MCP host carries nothing but MCP traffic.
    for (const auto& server : mcp_)
        if (server.host == canonical && server.port == port && !in_egress(canonical, port))
            return &server;
    return nullptr;
}

const osf::McpServer* Policy::server_on_host(const std::string& canonical,
                                             std::uint16_t port) const {
    const osf::McpServer* first = nullptr;
    for (const auto& server : mcp_) {
        if (server.host != canonical) continue;
        if (server.port == port) return &server;
        if (!first) first = &server;
    }
    return first;
}

bool Policy::has_mcp_endpoint(std::string_view host, std::uint16_t) const {
    if (mcp_.empty()) return false; // most requests: nothing to canonicalise for
    auto canonical = hosts::canonical_host(host);
    return canonical && mcp_endpoint_at(*canonical);
}

bool Policy::mcp_endpoint_at(const std::string& canonical) const {
    return std::any_of(mcp_.begin(), mcp_.end(),
                       [&](const osf::McpServer& server) { return server.host == canonical; });
}

Policy::Reading Policy::read_request(std::string_view host, std::uint16_t port,
                                     std::string_view path) const {
    Reading reading;
    const auto canonical = hosts::canonical_host(host);
    if (!canonical) return reading;
    reading.substitutes_secrets = in_egress(*canonical, port);
    if (!rules_.empty()) reading.rules = rules_at(*canonical, port);
    if (mcp_.empty()) return reading;
    reading.mcp_endpoint = mcp_endpoint_at(*canonical);
    if (!reading.mcp_endpoint) return reading;
    reading.mcp_server = mcp_server_at(*canonical, port, path);
    if (!reading.mcp_server) reading.host_server = server_on_host(*canonical, port);
    return reading;
}

const RequestRules* Policy::rules_for(std::string_view host, std::uint16_t port) const {
    if (rules_.empty()) return nullptr;
    const auto canonical = hosts::canonical_host(host);
    return canonical ? rules_at(*canonical, port) : nullptr;
}

const RequestRules* Policy::rules_at(const std::string& host, std::uint16_t port) const {
    int best = -1;
    std::size_t best_rank = 0;
    for (std::size_t i = 0; i < egress_.size(); ++i) {
        const auto& entry = egress_[i];
        if (!host_matches(entry.host, host) || (entry.port && *entry.port != port)) continue;
        // Exact hosts outrank every wildcard; then the longer name; then a named port.
        const std::size_t rank =
            (entry.wildcard() ? 0 : 1u << 20) + (entry.host.size() << 1) + (entry.port ? 1 : 0);
        if (best < 0 || rank > best_rank) {
            best = static_cast<int>(i);
            best_rank = rank;
        }
    }
    if (best < 0 || rules_of_entry_[static_cast<std::size_t>(best)] < 0) return nullptr;
    return &rules_[static_cast<std::size_t>(rules_of_entry_[static_cast<std::size_t>(best)])];
}

std::vector<std::string> Policy::permitted_names() const {
    std::vector<std::string> names;
    auto add = [&](std::string name) {
        if (std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(std::move(name));
    };
    for (const auto& rule : egress_)
        add(rule.wildcard() ? rule.host.substr(2) : rule.host);
    for (const auto& server : mcp_)
        add(server.host);
    return names;
}

} // namespace osf::policy
