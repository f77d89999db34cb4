// The egress log line's field names and values (contracts/egress-log.schema.json).
// The proxy writes lines with these, tests read them with these: one spelling.
#pragma once

#include <array>
#include <string_view>

namespace osf::log_field {

inline constexpr std::string_view time = "time";             // RFC 3339 UTC, milliseconds
inline constexpr std::string_view connection = "connection"; // client connection id, from 1
inline constexpr std::string_view client = "client";         // "ip:port" / "[ipv6]:port"
inline constexpr std::string_view host = "host";
inline constexpr std::string_view port = "port";
inline constexpr std::string_view scheme = "scheme"; // "http" | "https"
inline constexpr std::string_view method = "method";
inline constexpr std::string_view path = "path"; // never the query string
inline constexpr std::string_view outcome = "outcome";
inline constexpr std::string_view status = "status"; // 0: no HTTP answer
inline constexpr std::string_view refused_by = "refusedBy";
inline constexpr std::string_view error = "error";
inline constexpr std::string_view mcp_server = "mcpServer";
inline constexpr std::string_view tool = "tool";
inline constexpr std::string_view secrets = "secrets"; // names, never values
inline constexpr std::string_view upgrade = "upgrade";
inline constexpr std::string_view bytes_up = "bytesUp";
inline constexpr std::string_view bytes_down = "bytesDown";
inline constexpr std::string_view duration_ms = "durationMs";
inline constexpr std::string_view mcp_events_dropped = "mcpEventsDropped";
inline constexpr std::string_view tools_removed = "toolsRemoved";

// Every field, in the order a line is best written and read.
inline constexpr std::array<std::string_view, 21> all = {
    time,         connection, client,     host,        port,
    scheme,       method,     path,       outcome,     status,
    refused_by,   error,      mcp_server, tool,        secrets,
    upgrade,      bytes_up,   bytes_down, duration_ms, mcp_events_dropped,
    tools_removed};

} // namespace osf::log_field

namespace osf::outcome {

inline constexpr std::string_view allowed = "allowed"; // forwarded upstream
inline constexpr std::string_view refused = "refused"; // answered by the proxy; see refusedBy
inline constexpr std::string_view error = "error"; // allowed, but the upstream failed; see error

inline constexpr std::array<std::string_view, 3> all = {allowed, refused, error};

} // namespace osf::outcome

// `refusedBy` values: why the proxy answered instead of the upstream.
namespace osf::refused_by {

inline constexpr std::string_view host_not_allowed = "host-not-allowed"; // not in egress or mcp
inline constexpr std::string_view port_not_allowed = "port-not-allowed"; // host allowed, port not
inline constexpr std::string_view bad_host = "bad-host";                 // not a valid host name
inline constexpr std::string_view destination_address =
    "destination-address";                                         // loopback, metadata...
inline constexpr std::string_view host_mismatch = "host-mismatch"; // Host/SNI differs from CONNECT
inline constexpr std::string_view bad_request = "bad-request";     // unparsable HTTP
inline constexpr std::string_view mcp_tool = "mcp-tool"; // tools/call of an undeclared tool
inline constexpr std::string_view mcp_unreadable =
    "mcp-unreadable";                              // MCP body not readable JSON-RPC
inline constexpr std::string_view limit = "limit"; // a size or count limit
inline constexpr std::string_view mcp_upgrade =
    "mcp-upgrade"; // an upgrade (WebSocket, h2c...) asked of an MCP endpoint
inline constexpr std::string_view secret_cleartext =
    "secret-cleartext"; // a secret placeholder on a plain-HTTP request
inline constexpr std::string_view secret_echo =
    "secret-echo"; // an answer head echoing a secret where it cannot be masked

inline constexpr std::array<std::string_view, 12> all = {host_not_allowed,
                                                         port_not_allowed,
                                                         bad_host,
                                                         destination_address,
                                                         host_mismatch,
                                                         bad_request,
                                                         mcp_tool,
                                                         mcp_unreadable,
                                                         limit,
                                                         mcp_upgrade,
                                                         secret_cleartext,
                                                         secret_echo};

} // namespace osf::refused_by

// `error` values the proxy uses (the schema accepts any lower-case-hyphen word,
// so that a new reason needs no schema change).
namespace osf::log_error {

inline constexpr std::string_view dns = "dns";                           // name did not resolve
inline constexpr std::string_view upstream_connect = "upstream-connect"; // TCP connect failed
inline constexpr std::string_view upstream_tls = "upstream-tls"; // handshake or verification failed
inline constexpr std::string_view upstream_reset = "upstream-reset";     // closed mid-exchange
inline constexpr std::string_view upstream_timeout = "upstream-timeout"; // no answer in time
inline constexpr std::string_view upstream_protocol =
    "upstream-protocol"; // unparsable HTTP answer, or a 101 nobody asked for
inline constexpr std::string_view client_closed =
    "client-closed"; // the client left before the exchange ended
inline constexpr std::string_view client_timeout =
    "client-timeout"; // the client sent nothing more within the idle timeout
inline constexpr std::string_view client_tls =
    "client-tls"; // an allowed CONNECT whose client TLS handshake failed
inline constexpr std::string_view no_request =
    "no-request"; // an allowed CONNECT that carried no request
inline constexpr std::string_view aborted =
    "aborted"; // the exchange was cut short inside the proxy (shutdown, exception)

} // namespace osf::log_error

// The fields that make the log evidence (contracts/README.md, "Tamper evidence"):
// a hash chain on every line and signed checkpoints. Lines without `kind` are
// requests; `kind` names the two other kinds of line.
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

inline constexpr std::array<std::string_view, 2> all = {start, checkpoint};

} // namespace osf::log_kind
