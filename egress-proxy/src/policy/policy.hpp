// The egress decision: which destinations a sandbox may reach, and what the
// proxy does there (secret substitution, MCP filtering). Built once from the
// validated spec, then shared read-only. Pure: no sockets, no DNS.
#pragma once

#include "hosts/host_aliases.hpp"
#include "osf/log_fields.hpp"
#include "osf/spec.hpp"
#include "policy/address_class.hpp"
#include "policy/request_rules.hpp"

#include <boost/asio/ip/address.hpp>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace osf::policy {

// Refusal reasons are the contract's (contracts/include/osf/log_fields.hpp),
// as written in the log's `refusedBy` and the X-Osf-Refused-By header.
using osf::RefusalReason;

struct Decision {
    bool allowed = false;                    // deny is the default
    std::optional<RefusalReason> refused_by; // set exactly when refused
    std::string detail;                      // short human text for the 403 body, no secrets
    static Decision allow() { return Decision{true, {}, {}}; }
    static Decision refuse(RefusalReason why, std::string detail) {
        return Decision{false, why, std::move(detail)};
    }
};

class Policy {
public:
    Policy(const osf::Spec& spec, hosts::HostAliases aliases);

    // Before DNS: may this canonical host and port be reached at all? Allowed
    // when the host matches an `egress` entry (wildcards included, port
    // respected) or is the host and port of an `mcp` server.
    Decision check_destination(std::string_view host, std::uint16_t port) const;

    // Before DNS: is this canonical host and port a `tcp` destination (a raw
    // tunnel, never intercepted)? Wildcards match as in `egress`; the port
    // must be the entry's.
    bool is_tcp_destination(std::string_view host, std::uint16_t port) const;

    // After DNS (or for an IP literal): may the proxy connect to this address
    // for this host? Loopback, link-local, unspecified and multicast are
    // refused unless an alias for `host` names exactly this address; private
    // (RFC 1918, CGNAT, ULA) too, unless the spec names `host` itself (an
    // `egress` or `tcp` entry without a wildcard, or an MCP server's host).
    Decision check_address(std::string_view host, const boost::asio::ip::address& address) const;

    // The address an alias gives the host, if any.
    std::optional<boost::asio::ip::address> alias_for(std::string_view host) const;

    // Secret placeholders are substituted only for hosts in `egress`.
    bool substitutes_secrets(std::string_view host, std::uint16_t port) const;

    // The MCP server whose traffic this request is, if any: a request to the
    // server's URL path (or below it) on the server's host at any port (the
    // same host's application on another port, allowed by an `egress` entry
    // without a port, is in doubt: read as MCP), or any request to a host:port
    // that is only an MCP host (not in `egress`). An exact port wins a tie.
    const osf::McpServer* mcp_server_for(std::string_view host, std::uint16_t port,
                                         std::string_view path) const;

    // True when an MCP server lives on this host, at any port: there, a
    // request path must have one unambiguous reading (see ambiguous_path).
    bool has_mcp_endpoint(std::string_view host, std::uint16_t port) const;

    // The facts above for one admitted request, from one reading of its
    // host (admission asks them of every request).
    struct Reading {
        bool mcp_endpoint = false;                  // has_mcp_endpoint
        const osf::McpServer* mcp_server = nullptr; // mcp_server_for
        // A server on this host (this port first) when the request is not to
        // one of its endpoints: what admission reads a request in doubt as.
        const osf::McpServer* host_server = nullptr;
        bool substitutes_secrets = false;    // substitutes_secrets
        const RequestRules* rules = nullptr; // rules_for
    };
    Reading read_request(std::string_view host, std::uint16_t port, std::string_view path) const;

    // The rules that judge requests to this host and port, or null when the
    // entry that allows it has none (the host allowed whole, or only an MCP
    // server's). The most specific entry decides: an exact host before a
    // wildcard, a longer wildcard before a shorter, one naming the port before
    // one without.
    const RequestRules* rules_for(std::string_view host, std::uint16_t port) const;

    // Names the CA may be constrained to: every egress and MCP host, wildcards
    // as their parent domain ("*.example.com" -> "example.com").
    std::vector<std::string> permitted_names() const;

private:
    // These take a host that hosts::canonical_host() made.
    bool in_egress(std::string_view host, std::uint16_t port) const;
    bool named_literally(const std::string& host) const; // not only by a wildcard
    bool mcp_endpoint_at(const std::string& host) const;
    const osf::McpServer* server_on_host(const std::string& host, std::uint16_t port) const;
    const osf::McpServer* mcp_server_at(const std::string& host, std::uint16_t port,
                                        std::string_view path) const;

    const RequestRules* rules_at(const std::string& host, std::uint16_t port) const;

    std::vector<osf::EgressRule> egress_;
    std::vector<RequestRules> rules_; // compiled, of the entries that have rules
    std::vector<int> rules_of_entry_; // egress_[i]'s index in rules_, or -1
    std::vector<osf::McpServer> mcp_;
    std::vector<osf::TcpDestination> tcp_;
    hosts::HostAliases aliases_;
};

} // namespace osf::policy
