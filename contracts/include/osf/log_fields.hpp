// The egress log line's field names and values (contracts/egress-log.schema.json).
// The proxy writes lines with these, tests read them with these: one spelling.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace osf::log_field {

inline constexpr std::string_view time = "time";             // RFC 3339 UTC, milliseconds
inline constexpr std::string_view connection = "connection"; // client connection id, from 1
inline constexpr std::string_view client = "client";         // "ip:port" / "[ipv6]:port"
inline constexpr std::string_view host = "host";
inline constexpr std::string_view port = "port";
inline constexpr std::string_view scheme = "scheme"; // "http" | "https" | "tcp" (a raw tunnel)
// How a tunnel came in: "connect" (HTTP CONNECT) or "socks5" (absent: a request).
inline constexpr std::string_view via = "via";
// "2": the request came as an HTTP/2 stream (absent: HTTP/1.x).
inline constexpr std::string_view http = "http";
inline constexpr std::string_view method = "method";
inline constexpr std::string_view path = "path"; // never the query string
inline constexpr std::string_view outcome = "outcome";
inline constexpr std::string_view status = "status"; // 0: no HTTP answer
inline constexpr std::string_view refused_by = "refusedBy";
inline constexpr std::string_view error = "error";
inline constexpr std::string_view mcp_server = "mcpServer";
// The JSON-RPC methods of an MCP request ("tools/call", "resources/read"...), comma-separated.
inline constexpr std::string_view mcp_method = "mcpMethod";
inline constexpr std::string_view tool = "tool";
inline constexpr std::string_view secrets = "secrets"; // names, never values
inline constexpr std::string_view upgrade = "upgrade";
inline constexpr std::string_view bytes_up = "bytesUp";
inline constexpr std::string_view bytes_down = "bytesDown";
inline constexpr std::string_view duration_ms = "durationMs";
inline constexpr std::string_view mcp_events_dropped = "mcpEventsDropped";
inline constexpr std::string_view tools_removed = "toolsRemoved";
// The egress rule that decided (entries with rules only): its short name, and
// its index in the entry's rules (absent when no rule matched).
inline constexpr std::string_view rule = "rule";
inline constexpr std::string_view rule_index = "ruleIndex";
// Audit mode: the refusal the rules would have made (the request went on).
inline constexpr std::string_view would_refuse = "wouldRefuse";
// The policy that admitted the request when a change made it (absent: the spec's).
inline constexpr std::string_view policy = "policy";
// A folded line (many refusals of one kind in a window): how many, since when.
inline constexpr std::string_view count = "count";
inline constexpr std::string_view since = "since";

// Every field, in the order a line is best written and read.
inline constexpr std::array<std::string_view, 30> all = {time,
                                                         connection,
                                                         client,
                                                         host,
                                                         port,
                                                         scheme,
                                                         via,
                                                         http,
                                                         method,
                                                         path,
                                                         outcome,
                                                         status,
                                                         refused_by,
                                                         error,
                                                         mcp_server,
                                                         mcp_method,
                                                         tool,
                                                         secrets,
                                                         upgrade,
                                                         bytes_up,
                                                         bytes_down,
                                                         duration_ms,
                                                         mcp_events_dropped,
                                                         tools_removed,
                                                         rule,
                                                         rule_index,
                                                         would_refuse,
                                                         policy,
                                                         count,
                                                         since};

} // namespace osf::log_field

namespace osf {

// `outcome` values.
enum class Outcome : std::uint8_t {
    allowed, // forwarded upstream
    refused, // answered by the proxy; see refusedBy
    error,   // allowed, but the upstream failed or the client left; see error
};

// `refusedBy` values: why the proxy answered instead of the upstream.
enum class RefusalReason : std::uint8_t {
    host_not_allowed,    // not in egress or mcp
    port_not_allowed,    // host allowed, port not
    bad_host,            // not a valid host name
    destination_address, // loopback, metadata...
    host_mismatch,       // Host/SNI differs from CONNECT
    bad_request,         // unparsable HTTP
    mcp_tool,            // tools/call of an undeclared tool
    mcp_unreadable,      // MCP body not readable JSON-RPC
    limit,               // a size or count limit
    mcp_upgrade,         // an upgrade (WebSocket, h2c...) asked of an MCP endpoint
    secret_cleartext,    // a secret placeholder on a plain-HTTP request
    secret_echo,         // an answer head echoing a secret where it cannot be masked
    // An AWS SigV4 request to an AWS secret's host not signed with its
    // placeholder credentials (another key, a bad signature, another session token).
    aws_signature_not_placeholder,
    aws_scope_not_allowed,     // the placeholder credentials off their hosts, regions, services
    aws_signature_unsupported, // a SigV4 form the proxy cannot sign again (a body it would hash)
    secret_not_bound,          // a bound secret's placeholder sent to a host not in its `hosts`
    secret_place,              // a bound secret's placeholder where its `in` does not allow it
    secret_required, // a request to a required secret's host without it, or with another credential
    method_not_allowed,          // the host's rules do not allow this method there
    path_not_allowed,            // the host's rules do not allow this path (or cannot read it)
    tcp_destination_not_allowed, // a SOCKS5 CONNECT to a host:port in neither `tcp` nor `egress`
    socks_command_not_supported, // a SOCKS5 BIND or UDP ASSOCIATE (only CONNECT is served)
    tool_argument_not_allowed,   // a tools/call whose arguments its tool's argument rules refuse
};

// `error` values the proxy writes (the schema accepts any lower-case-hyphen
// word, so that a new kind needs no schema change).
enum class ErrorKind : std::uint8_t {
    dns,               // name did not resolve
    upstream_connect,  // TCP connect failed
    upstream_tls,      // handshake or verification failed
    upstream_reset,    // closed mid-exchange
    upstream_timeout,  // no answer in time
    upstream_protocol, // unparsable HTTP answer, or a 101 nobody asked for
    client_closed,     // the client left before the exchange ended
    client_timeout,    // the client sent nothing more within the idle timeout
    client_tls,        // an allowed CONNECT whose client TLS handshake failed
    no_request,        // an allowed CONNECT that carried no request
    aborted,           // the exchange was cut short inside the proxy (shutdown, exception)
    upstream_limit,    // the answer's head, a chunk-size line or its trailers over a ceiling
    policy_revoked,    // a raw TCP tunnel a revoke of its destination ended
    idle_timeout,      // a raw TCP tunnel that carried nothing either way within the idle timeout
};

// The names as written in the log (and the X-Osf-Refused-By header). A switch
// without default: a new enumerator without its name does not compile.
constexpr std::string_view to_string(Outcome o) noexcept {
    switch (o) {
    case Outcome::allowed:
        return "allowed";
    case Outcome::refused:
        return "refused";
    case Outcome::error:
        return "error";
    }
    return {};
}

constexpr std::string_view to_string(RefusalReason r) noexcept {
    switch (r) {
    case RefusalReason::host_not_allowed:
        return "host-not-allowed";
    case RefusalReason::port_not_allowed:
        return "port-not-allowed";
    case RefusalReason::bad_host:
        return "bad-host";
    case RefusalReason::destination_address:
        return "destination-address";
    case RefusalReason::host_mismatch:
        return "host-mismatch";
    case RefusalReason::bad_request:
        return "bad-request";
    case RefusalReason::mcp_tool:
        return "mcp-tool";
    case RefusalReason::mcp_unreadable:
        return "mcp-unreadable";
    case RefusalReason::limit:
        return "limit";
    case RefusalReason::mcp_upgrade:
        return "mcp-upgrade";
    case RefusalReason::secret_cleartext:
        return "secret-cleartext";
    case RefusalReason::secret_echo:
        return "secret-echo";
    case RefusalReason::aws_signature_not_placeholder:
        return "aws-signature-not-placeholder";
    case RefusalReason::aws_scope_not_allowed:
        return "aws-scope-not-allowed";
    case RefusalReason::aws_signature_unsupported:
        return "aws-signature-unsupported";
    case RefusalReason::secret_not_bound:
        return "secret-not-bound-to-host";
    case RefusalReason::secret_place:
        return "secret-place-not-allowed";
    case RefusalReason::secret_required:
        return "secret-required";
    case RefusalReason::method_not_allowed:
        return "method-not-allowed";
    case RefusalReason::path_not_allowed:
        return "path-not-allowed";
    case RefusalReason::tcp_destination_not_allowed:
        return "tcp-destination-not-allowed";
    case RefusalReason::socks_command_not_supported:
        return "socks-command-not-supported";
    case RefusalReason::tool_argument_not_allowed:
        return "tool-argument-not-allowed";
    }
    return {};
}

constexpr std::string_view to_string(ErrorKind e) noexcept {
    switch (e) {
    case ErrorKind::dns:
        return "dns";
    case ErrorKind::upstream_connect:
        return "upstream-connect";
    case ErrorKind::upstream_tls:
        return "upstream-tls";
    case ErrorKind::upstream_reset:
        return "upstream-reset";
    case ErrorKind::upstream_timeout:
        return "upstream-timeout";
    case ErrorKind::upstream_protocol:
        return "upstream-protocol";
    case ErrorKind::client_closed:
        return "client-closed";
    case ErrorKind::client_timeout:
        return "client-timeout";
    case ErrorKind::client_tls:
        return "client-tls";
    case ErrorKind::no_request:
        return "no-request";
    case ErrorKind::aborted:
        return "aborted";
    case ErrorKind::upstream_limit:
        return "upstream-limit";
    case ErrorKind::policy_revoked:
        return "policy-revoked";
    case ErrorKind::idle_timeout:
        return "idle-timeout";
    }
    return {};
}

// Every value, in declaration order (all_x[i] has the underlying value i, so
// a counter array can be indexed by the enum). Checked below: a value missing
// from its list, or named by no to_string case, does not compile.
inline constexpr std::array<Outcome, 3> all_outcomes = {Outcome::allowed, Outcome::refused,
                                                        Outcome::error};
inline constexpr std::array<RefusalReason, 23> all_refusal_reasons = {
    RefusalReason::host_not_allowed,
    RefusalReason::port_not_allowed,
    RefusalReason::bad_host,
    RefusalReason::destination_address,
    RefusalReason::host_mismatch,
    RefusalReason::bad_request,
    RefusalReason::mcp_tool,
    RefusalReason::mcp_unreadable,
    RefusalReason::limit,
    RefusalReason::mcp_upgrade,
    RefusalReason::secret_cleartext,
    RefusalReason::secret_echo,
    RefusalReason::aws_signature_not_placeholder,
    RefusalReason::aws_scope_not_allowed,
    RefusalReason::aws_signature_unsupported,
    RefusalReason::secret_not_bound,
    RefusalReason::secret_place,
    RefusalReason::secret_required,
    RefusalReason::method_not_allowed,
    RefusalReason::path_not_allowed,
    RefusalReason::tcp_destination_not_allowed,
    RefusalReason::socks_command_not_supported,
    RefusalReason::tool_argument_not_allowed};
inline constexpr std::array<ErrorKind, 14> all_error_kinds = {ErrorKind::dns,
                                                              ErrorKind::upstream_connect,
                                                              ErrorKind::upstream_tls,
                                                              ErrorKind::upstream_reset,
                                                              ErrorKind::upstream_timeout,
                                                              ErrorKind::upstream_protocol,
                                                              ErrorKind::client_closed,
                                                              ErrorKind::client_timeout,
                                                              ErrorKind::client_tls,
                                                              ErrorKind::no_request,
                                                              ErrorKind::aborted,
                                                              ErrorKind::upstream_limit,
                                                              ErrorKind::policy_revoked,
                                                              ErrorKind::idle_timeout};

namespace detail {
template <class Enum, std::size_t N>
constexpr bool dense_in_order(const std::array<Enum, N>& values) {
    for (std::size_t i = 0; i < N; ++i)
        if (static_cast<std::size_t>(values[i]) != i || to_string(values[i]).empty()) return false;
    // The value after the last one listed must have no name: no enumerator was left out.
    return to_string(static_cast<Enum>(N)).empty();
}
} // namespace detail
static_assert(detail::dense_in_order(all_outcomes));
static_assert(detail::dense_in_order(all_refusal_reasons));
static_assert(detail::dense_in_order(all_error_kinds));

} // namespace osf

// The fields that make the log evidence (contracts/README.md, "Tamper evidence"):
// a hash chain on every line and signed checkpoints. Lines without `kind` are
// requests; `kind` names the other kinds of line.
namespace osf::log_evidence_field {

inline constexpr std::string_view chain = "chain";  // SHA-256 (hex) of the previous line's bytes
inline constexpr std::string_view kind = "kind";    // absent on request lines
inline constexpr std::string_view log_id = "logId"; // start, checkpoint: 32 hex digits
inline constexpr std::string_view public_key = "publicKey"; // start: Ed25519, base64 of 32 bytes
inline constexpr std::string_view lines = "lines";         // checkpoint: lines of the run before it
inline constexpr std::string_view signature = "signature"; // checkpoint: Ed25519, base64
inline constexpr std::string_view final = "final";         // checkpoint: written at shutdown

inline constexpr std::array<std::string_view, 7> all = {chain, kind,      log_id, public_key,
                                                        lines, signature, final};

} // namespace osf::log_evidence_field

namespace osf::log_kind {

inline constexpr std::string_view start = "start";           // first line of each proxy run
inline constexpr std::string_view checkpoint = "checkpoint"; // signs the chain head
inline constexpr std::string_view policy = "policy";         // allow or revoke while running

inline constexpr std::array<std::string_view, 3> all = {start, checkpoint, policy};

} // namespace osf::log_kind

// The fields of a policy line (log_kind::policy).
namespace osf::policy_field {

inline constexpr std::string_view change = "change";         // "allow" or "revoke"
inline constexpr std::string_view entries = "entries";       // egress entries added or removed
inline constexpr std::string_view tools = "tools";           // "server:tool"s added or removed
inline constexpr std::string_view by = "by";                 // who asked
inline constexpr std::string_view generation = "generation"; // the policy's number from here on
inline constexpr std::string_view ended = "ended";   // revoke: open tunnels and WebSockets it ended
inline constexpr std::string_view secret = "secret"; // rotate: the secret's name, never its value

inline constexpr std::array<std::string_view, 7> all = {change,     entries, tools, by,
                                                        generation, ended,   secret};

} // namespace osf::policy_field
