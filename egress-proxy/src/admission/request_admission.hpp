// Request admission: everything the proxy decides about a request from its
// head, before a byte goes upstream. Where it goes (target form, port, user
// information), whether the Host header and the TLS server name agree with
// it, whether its framing is one the upstream reads the same way, whether the
// policy allows it, and what the proxy does there (MCP, secrets). Pure: the
// I/O code gathers the facts, calls admit(), and either answers the refusal
// or forwards by the plan.
#pragma once

#include "mcp/mcp_filter.hpp"
#include "policy/announced_endpoints.hpp"
#include "policy/policy.hpp"

#include <boost/beast/http/status.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace osf::admission {

// The CONNECT tunnel a request arrived in (checked by the policy at CONNECT).
struct Tunnel {
    std::string_view host; // canonical
    std::uint16_t port = 0;
    bool tls = true;              // intercepted TLS: the upstream leg is TLS too
    std::string_view sni_problem; // non-empty: the TLS server name named another host
};

// What the request head says, as read by the HTTP parser.
struct RequestFacts {
    std::string_view target;        // the request target as written
    std::string_view method;        // as sent (the host's rules match it case-sensitively)
    unsigned version = 11;          // 10 or 11
    std::size_t host_fields = 0;    // how many Host fields
    std::string_view host_field;    // the first Host field's value
    bool transfer_encoding = false; // a Transfer-Encoding field is present
    bool chunked = false;           // the body is chunked (the last coding)
    std::optional<std::uint64_t> content_length;
    bool asks_for_upgrade = false; // any protocol upgrade (see asks_for_upgrade)
    bool trace = false;            // the method is TRACE (which has no content)
    // A Transfer-Encoding that is not exactly one "chunked" ("gzip, chunked").
    bool other_transfer_coding = false;
    std::size_t content_encoding_fields = 0;
    std::optional<Tunnel> tunnel; // absent: the proxy-facing connection
    // Whether the head (hop-by-hop fields removed) holds a secret placeholder;
    // asked only where secrets are substituted. Null: it holds none.
    std::function<bool()> carries_placeholder;

    // A Transfer-Encoding whose last coding is not chunked: the body's end is undefined.
    bool unframed_coding() const { return transfer_encoding && !chunked; }
    bool has_body() const {
        return chunked || (content_length && *content_length > 0) || unframed_coding();
    }
};

// What the log line says of the destination, as far as the request was read
// (a refusal logs what was known when it was decided).
struct Destination {
    std::string scheme = "https"; // "http" | "https" (the log's default when none was read)
    std::string host;             // canonical, or as written when it is not a valid host
    std::uint16_t port = 0;
    std::string path;       // never the query
    std::string mcp_server; // the MCP server's name, if the request is MCP traffic
    std::string rule;       // the egress rule that decided (a host with rules only)
    int rule_index = -1;    // its index in the entry's rules; -1: none matched
    std::optional<RefusalReason> would_refuse; // audit mode: the refusal the rules let pass
};

// The proxy answers instead of the upstream.
struct Refusal {
    boost::beast::http::status status;
    RefusalReason reason;
    std::string detail; // the refusal body's text, no secrets
    bool close_client;  // a body is left unread: the client connection ends
};

// How the request goes upstream.
struct Plan {
    bool upstream_tls = false;
    std::string host; // canonical
    std::uint16_t port = 0;
    std::string target;                     // origin form ("/path?query")
    std::string path;                       // target up to '?'
    const mcp::ServerPolicy* mcp = nullptr; // MCP traffic: read and judged whole
    // Not MCP traffic, on a host where an MCP server lives: an event stream
    // answered is that server's (filtered, its endpoint announcements learned).
    const mcp::ServerPolicy* mcp_host = nullptr;
    bool substitute_secrets = false;
    // The Host field to send, when the request's own is not kept (every
    // absolute-form request, and HTTP/1.0 without Host in a tunnel).
    std::optional<std::string> host_field;
};

struct Admission {
    Destination logged;
    std::variant<Plan, Refusal> verdict;

    const Refusal* refusal() const { return std::get_if<Refusal>(&verdict); }
    Plan& plan() { return std::get<Plan>(verdict); }
    const Plan& plan() const { return std::get<Plan>(verdict); }
};

// The policy the admission reads: the destination rules, the MCP servers'
// policies by name, and the endpoints the servers announced (may be null).
struct AdmissionPolicy {
    const policy::Policy& destinations;
    const std::map<std::string, mcp::ServerPolicy, std::less<>>& mcp_servers;
    const policy::AnnouncedEndpoints* announced = nullptr;
};

Admission admit(const AdmissionPolicy& policy, const RequestFacts& request);

// A URL's port text: digits only, 1 to 65535 (empty means the scheme's default).
bool port_in_range(std::string_view text);

} // namespace osf::admission
