// Generated from contracts/egress-log.schema.json by generate-types.mjs: do not edit.

/**
 * One line of egress-proxy's egress log (<state-dir>/egress.jsonl): one JSON object per request, allowed, refused or failed, plus two kinds of line that make the log evidence (kind start: a proxy run's first line; kind checkpoint: a signature over the chain). Every line ends with chain, the SHA-256 of the line before. Never header values, query strings, bodies or MCP arguments. Field names are constants in contracts/include/osf/log_fields.hpp; field by field in contracts/README.md.
 */
export type EgressLogLine = ({
[k: string]: unknown | undefined
} & {
/**
 * When the request arrived: RFC 3339 in UTC with milliseconds.
 */
time: string
/**
 * The client connection's id, counting from 1 since the proxy started; requests on one keep-alive connection or tunnel share it.
 */
connection?: number
/**
 * The client's address as ip:port ([ipv6]:port for IPv6).
 */
client?: string
/**
 * The destination host as the client named it (CONNECT target or absolute-form URL host), lower case; may be empty when the request named none. Longer than 1024 bytes: cut, ending in [cut].
 */
host?: string
/**
 * The destination port; 0 when the request named none.
 */
port?: number
/**
 * https for requests inside an intercepted tunnel (and for a refused CONNECT), http for plain requests, tcp for a raw TCP tunnel (a tcp destination: one line per tunnel, when it ends) and for a refused SOCKS5 request.
 */
scheme?: ("http" | "https" | "tcp")
/**
 * How a tunnel came in: connect (an HTTP CONNECT) or socks5 (a SOCKS5 CONNECT). On a raw TCP tunnel's line, a refused SOCKS5 request's, and every line of a connection that came in by SOCKS5; absent otherwise.
 */
via?: ("connect" | "socks5")
/**
 * 2 when the request came as an HTTP/2 stream inside an intercepted tunnel (one line per stream); absent for HTTP/1.x.
 */
http?: "2"
/**
 * The HTTP method (CONNECT for a tunnel refused before any request in it, or one that ended without any); empty when a malformed request line named none. Longer than 64 bytes: cut, ending in [cut].
 */
method?: string
/**
 * The request path without its query string; empty for CONNECT. Longer than 2048 bytes: cut, ending in [cut].
 */
path?: string
/**
 * allowed: forwarded upstream; refused: answered by the proxy (refusedBy says why); error: allowed but the exchange did not complete: the upstream could not be reached or failed, or the client left (error says how). Every exchange ends in exactly one line.
 */
outcome?: ("allowed" | "refused" | "error")
/**
 * The HTTP status the client received; 0 when it received no HTTP answer.
 */
status?: number
/**
 * Why the proxy refused. Present exactly when outcome is refused.
 */
refusedBy?: ("host-not-allowed" | "port-not-allowed" | "bad-host" | "destination-address" | "host-mismatch" | "bad-request" | "mcp-tool" | "mcp-unreadable" | "limit" | "mcp-upgrade" | "secret-cleartext" | "secret-echo" | "aws-signature-not-placeholder" | "aws-scope-not-allowed" | "aws-signature-unsupported" | "secret-not-bound-to-host" | "secret-place-not-allowed" | "secret-required" | "method-not-allowed" | "path-not-allowed" | "tcp-destination-not-allowed" | "socks-command-not-supported" | "tool-argument-not-allowed")
/**
 * A short machine-readable reason, such as upstream-connect, upstream-tls, upstream-reset, upstream-timeout, upstream-protocol, dns, client-closed (the client left mid-exchange), client-timeout (the client sent nothing more within the idle timeout), client-tls (an allowed CONNECT whose client refused the proxy's certificate), no-request (an allowed CONNECT that carried no request), aborted (cut short inside the proxy, e.g. at shutdown), upstream-limit (the answer's head, a chunk-size line or its trailer section over the proxy's ceiling), policy-revoked (a raw TCP tunnel a revoke of its destination ended), idle-timeout (a raw TCP tunnel that carried nothing either way within the idle timeout). Present exactly when outcome is error.
 */
error?: string
/**
 * The name of the spec's MCP server the request went to.
 */
mcpServer?: string
/**
 * For an MCP request: its JSON-RPC methods (tools/call, resources/read, prompts/get...), each once (the first 16), comma-separated, in the order the body names them. Longer than 1024 bytes: cut, ending in [cut].
 */
mcpMethod?: string
/**
 * For an MCP tools/call: the tool called (or refused); several, comma-separated, for a batch. Longer than 1024 bytes: cut, ending in [cut].
 */
tool?: string
/**
 * Names of the secrets substituted into this request (never their values).
 */
secrets?: string[]
/**
 * The protocol the connection was upgraded to, such as websocket.
 */
upgrade?: string
/**
 * Request body bytes sent upstream (for an upgrade or a raw TCP tunnel: bytes from client to server).
 */
bytesUp?: number
/**
 * Response body bytes sent to the client (for an upgrade or a raw TCP tunnel: bytes from server to client).
 */
bytesDown?: number
/**
 * Milliseconds from the request's arrival to its last byte (or its refusal).
 */
durationMs?: number
/**
 * Server-sent events the MCP filter removed from a response.
 */
mcpEventsDropped?: number
/**
 * Tools removed from tools/list answers in this response.
 */
toolsRemoved?: number
/**
 * On a host whose egress entry has rules: the rule that decided, by its short name (its name, or "<host[:port]>#<index>"); "<host[:port]>#none" when no rule matched (refused), "<host[:port]>#path" when the path could not be read one way (refused). With refusedBy tool-argument-not-allowed: the MCP tool-argument rule that refused the call, "<server>:<tool>#<argument>" ("<server>:<tool>#arguments" when the call's arguments were no object).
 */
rule?: string
/**
 * Audit mode (the spec's or the entry's mode): the refusal the host's rules would have made; the request went on (outcome allowed or error), rule names the rule.
 */
wouldRefuse?: ("method-not-allowed" | "path-not-allowed" | "tcp-destination-not-allowed" | "socks-command-not-supported")
/**
 * With rule, when a rule matched: its index (from 0) in the entry's rules.
 */
ruleIndex?: number
/**
 * Request lines: the generation of the policy that admitted the request, when a policy change (allow, revoke) made it; absent when the spec the proxy started with did. The policy line with this generation says what changed.
 */
policy?: number
/**
 * Present only on a folded line: under a flood of requests that carried nothing out (refusals decided before anything was sent; clients that left or timed out before their request went upstream; connections an allowed but closed port refused, which past the window's bound on kinds are written whole rather than host-less; an exchange whose request reached an upstream is never folded), the proxy writes the first lines of each kind in a window whole and then one line per kind counting the rest. The line stands for count requests of the same outcome, reason, host, port, scheme, method, MCP server, tool and secrets, from since to time; its path is empty, its connection and client are the last one's, bytesDown the sum and durationMs the longest. A folded line with an empty host and method counts the requests of that outcome and reason beyond the window's bound on kinds, whatever their host.
 */
count?: number
/**
 * Present exactly when count is: the time of the first request the folded line counts (time is the last one's).
 */
since?: string
/**
 * Every line: the SHA-256 (lower-case hex) of the previous line's exact bytes, newline included. On the first line of a log (a start line): the SHA-256 of its logId's text.
 */
chain: string
/**
 * Absent on request lines. start: the first line of a proxy run (names the log and the run's signing key); checkpoint: signs the chain head; policy: a change of what the sandbox may reach while it runs (allow or revoke).
 */
kind?: ("start" | "checkpoint" | "policy")
/**
 * policy lines: allow (entries or tools added), revoke (removed), or rotate (a ref:file/ secret's file changed and the proxy uses its new value from the next request; secret names it, never a value).
 */
change?: ("allow" | "revoke" | "rotate")
/**
 * rotate lines: the name of the secret whose value changed (never the value).
 */
secret?: string
/**
 * policy lines: the egress entries the change added or removed, host or host:port as the policy compares them (lower case, a wildcard as *.domain).
 * 
 * @maxItems 256
 */
entries?: string[]
/**
 * policy lines: the MCP tools the change added or removed, as server:tool.
 * 
 * @maxItems 8192
 */
tools?: string[]
/**
 * policy lines: who asked for the change, as the caller named itself (the CLI sends the user and host it ran as); at most 256 bytes.
 */
by?: string
/**
 * policy lines: the number of the policy in force from this line on (the spec the proxy started with is 0; each allow or revoke adds one within a run, so theirs is 1 or more; a rotate line changes no policy and says the one in force, 0 included).
 */
generation?: number
/**
 * revoke lines: how many open CONNECT tunnels and WebSockets to a host the change revoked the proxy ended (their client connections closed); each request they carried has its own line already.
 */
ended?: number
/**
 * start and checkpoint lines: the run's random log ID.
 */
logId?: string
/**
 * start lines: the run's Ed25519 public key, base64 of its 32 bytes (the same key as <state-dir>/log-key.pub).
 */
publicKey?: string
/**
 * checkpoint lines: how many lines of the run (its start line included) come before the checkpoint.
 */
lines?: number
/**
 * checkpoint lines: Ed25519 signature, base64 of 64 bytes, over the checkpoint message (contracts/README.md): logId, lines, time, chain and final.
 */
signature?: string
/**
 * checkpoint lines: present and true on the checkpoint the proxy writes at shutdown, the run's last line.
 */
final?: true
})
