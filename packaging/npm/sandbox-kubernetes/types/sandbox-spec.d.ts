// Generated from contracts/sandbox-spec.schema.json by generate-types.mjs: do not edit.

/**
 * Printable ASCII without spaces, holding '/', ':' or '@'.
 */
export type ImageReference = string
/**
 * A SandboxTemplate name: a DNS-1123 subdomain.
 */
export type TemplateName = string
/**
 * Positive whole millicores ("500m") or positive cores with at most three decimals ("2", "0.5").
 */
export type CpuQuantity = string
/**
 * Any text without NUL characters.
 */
export type EnvValue = string | undefined
/**
 * [*.]name[.][:port] or ipv4[:port]. Labels of letters, digits and inner hyphens (1-63 each); the last label is not all digits; the host is at most 253 characters; a wildcard covers a domain of two labels or more; port 1-65535 without leading zeros.
 */
export type EgressEntry = string
/**
 * Matches a request when its method is among methods (absent: any), its normalised path matches one of paths (absent: any) and its query carries each query parameter exactly once with that value (absent: any query); then allows or denies it.
 */
export type RequestRule = ({
/**
 * "read-only" (GET, HEAD, OPTIONS) or methods as sent (case-sensitive).
 */
methods?: ("read-only" | [string]|[string, string]|[string, string, string]|[string, string, string, string]|[string, string, string, string, string]|[string, string, string, string, string, string]|[string, string, string, string, string, string, string]|[string, string, string, string, string, string, string, string]|[string, string, string, string, string, string, string, string, string]|[string, string, string, string, string, string, string, string, string, string]|[string, string, string, string, string, string, string, string, string, string, string]|[string, string, string, string, string, string, string, string, string, string, string, string]|[string, string, string, string, string, string, string, string, string, string, string, string, string]|[string, string, string, string, string, string, string, string, string, string, string, string, string, string]|[string, string, string, string, string, string, string, string, string, string, string, string, string, string, string]|[string, string, string, string, string, string, string, string, string, string, string, string, string, string, string, string])
/**
 * @minItems 1
 * @maxItems 64
 */
paths?: [PathPattern, ...(PathPattern)[]]
/**
 * Parameters the query must carry once each, with exactly these (decoded) values.
 */
query?: {
[k: string]: string | undefined
}
allow?: true
deny?: true
/**
 * The rule's short name in the log and in refusals; absent: "<host[:port]>#<index>".
 */
name?: string
reason?: ReasonText
} & RequestRule1 & {
/**
 * "read-only" (GET, HEAD, OPTIONS) or methods as sent (case-sensitive).
 */
methods?: ("read-only" | [string]|[string, string]|[string, string, string]|[string, string, string, string]|[string, string, string, string, string]|[string, string, string, string, string, string]|[string, string, string, string, string, string, string]|[string, string, string, string, string, string, string, string]|[string, string, string, string, string, string, string, string, string]|[string, string, string, string, string, string, string, string, string, string]|[string, string, string, string, string, string, string, string, string, string, string]|[string, string, string, string, string, string, string, string, string, string, string, string]|[string, string, string, string, string, string, string, string, string, string, string, string, string]|[string, string, string, string, string, string, string, string, string, string, string, string, string, string]|[string, string, string, string, string, string, string, string, string, string, string, string, string, string, string]|[string, string, string, string, string, string, string, string, string, string, string, string, string, string, string, string])
/**
 * @minItems 1
 * @maxItems 64
 */
paths?: [PathPattern, ...(PathPattern)[]]
/**
 * Parameters the query must carry once each, with exactly these (decoded) values.
 */
query?: {
[k: string]: string | undefined
}
allow?: true
deny?: true
/**
 * The rule's short name in the log and in refusals; absent: "<host[:port]>#<index>".
 */
name?: string
reason?: ReasonText
} & RequestRule1)
/**
 * A normalised path in plain characters (no '%', no '.' or '..' segment, no '//'): exact "/a/b"; "/a/*" every path below /a/; a '*' segment elsewhere any one segment ("/repos/* /issues").
 */
export type PathPattern = string
/**
 * Words for the agent a refusal names this rule to: one line.
 */
export type ReasonText = string
export type RequestRule1 = ({
[k: string]: unknown | undefined
} | {
[k: string]: unknown | undefined
})
/**
 * enforce (the default): a request the rules refuse is refused; audit: it goes on, its log line says wouldRefuse and the rule. Hosts are always enforced.
 */
export type RuleMode = ("enforce" | "audit")
/**
 * [*.]name[.]:port or ipv4:port, host as in egressEntry, the port (1-65535, no leading zeros) required.
 */
export type TcpEntry = string
/**
 * ref:file/<name> (a file name in OSF_SECRETS_DIR, not '.' or '..', at most 255 characters), ref:env/<NAME> (the proxy's variable OSF_SECRET_<NAME>) or ref:openbao/<path> (a KV v2 path of non-empty segments, none '.' or '..').
 */
export type SecretRef = string
/**
 * Lower-case letters, digits and inner hyphens, 1-64 characters.
 */
export type AwsWord = string
/**
 * An egress entry without a port.
 */
export type AwsHost = (EgressEntry & string)
export type McpToolName = string
export type McpArgumentValue = (string | number | boolean)

/**
 * What a sandbox runs and what it may reach. Read by sandbox-kubernetes (create) and egress-proxy (--spec). Field by field in contracts/README.md.
 */
export interface SandboxSpec {
/**
 * Optional: this schema's URL, for editors. Ignored.
 */
$schema?: string
/**
 * An image when it holds '/', ':' or '@' ("node:24-alpine"), else the name of a SandboxTemplate in the namespace (a DNS-1123 subdomain). Optional: without it, sandbox-kubernetes uses OSF_SANDBOX_DEFAULT_IMAGE (the project's sandbox-base image) and sandbox-local the host's root file system.
 */
template?: ((ImageReference | TemplateName) & string)
/**
 * Cores for the sandbox container's request and limit: a number (2, 0.5; at least 0.001) or a Kubernetes quantity string ("2", "1.5", "500m").
 */
cpu?: (number | CpuQuantity)
/**
 * Memory for the sandbox container's request and limit: a Kubernetes quantity string ("4Gi", "512Mi", "1G").
 */
memory?: string
/**
 * Disk for the sandbox: the sandbox container's ephemeral-storage request and limit, and the size limit of /workspace; a Kubernetes quantity string ("10Gi", "500Mi").
 */
storage?: string
/**
 * The size of the sandbox's /tmp, a file system in memory (its pages count against the memory limit) in every mode; a Kubernetes quantity string ("512Mi", "1Gi"). Default: 256Mi on Kubernetes; locally the memory limit (1Gi without one).
 */
tmpSize?: string
/**
 * The sandbox's environment variables, NAME -> value.
 */
env?: {
[k: string]: EnvValue | undefined
}
/**
 * Hosts the sandbox may reach: "host", "*.domain" (every subdomain, not the domain itself), optionally ":port"; or an IPv4 address. An entry written as an object {"host", "rules"} allows only the requests its rules allow (first match wins, no match refuses). A host (with its port) is listed once when any of its entries has rules (the C++ validator checks this).
 * 
 * @maxItems 256
 */
egress?: (EgressEntry | EgressEntryWithRules)[]
/**
 * Destinations the sandbox may reach with raw TCP (git over SSH, databases): "host:port", the host written as in egress (a name, "*.domain", or an IPv4 address), the port required. The proxy relays a CONNECT or SOCKS5 tunnel to one byte for byte: never intercepted, no secret substitution, no MCP filtering.
 * 
 * @maxItems 256
 */
tcp?: TcpEntry[]
/**
 * enforce (the default): a request the rules refuse is refused; audit: it goes on, its log line says wouldRefuse and the rule. Hosts are always enforced.
 */
mode?: ("enforce" | "audit")
/**
 * Secrets the proxy substitutes for placeholders, NAME -> reference (sent to every egress host, in header values and Basic credentials), a bound secret (only to its hosts, only where its `in` says), or an AWS secret (kind "aws"), whose requests the proxy signs again. At most one AWS secret (the sandbox's AWS_* variables hold its placeholders); its hosts must be allowed by egress and AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN may then not be env names nor secret names (the C++ validator checks these rules, which span sections).
 */
secrets?: {
[k: string]: (SecretRef | BoundSecret | AwsSecret) | undefined
}
/**
 * MCP servers the sandbox may call, each with the only tools it may use. Names and URLs are unique (uniqueItemProperties is an ajv-keywords keyword; validators without it skip that check, the C++ validator makes it).
 * 
 * @maxItems 32
 */
mcp?: McpServer[]
/**
 * Run the sandbox as this non-root user and group (admitted under Pod Security "restricted"): runAsNonRoot, runAsUser, runAsGroup and fsGroup, no capabilities. Without it the sandbox runs as its image's user with the capabilities a root package manager needs (Pod Security "baseline").
 */
user?: {
uid: number
gid: number
}
/**
 * Make the sandbox container's root file system read-only; /workspace, /tmp (in memory) and the home directory stay writable.
 */
readOnlyRoot?: boolean
/**
 * How long the sandbox may live before it is removed: a duration such as "90m", "8h", "1h30m", "2d". Default and maximum: sandbox-kubernetes' OSF_SANDBOX_DEFAULT_LIFETIME and OSF_SANDBOX_MAX_LIFETIME.
 */
lifetime?: string
/**
 * /workspace and the home directory on a per-sandbox ReadWriteOnce PersistentVolumeClaim (agent-sandbox's volumeClaimTemplates) instead of emptyDirs: what suspend and resume keep.
 */
persistence?: {
/**
 * The claim's size.
 */
size: string
/**
 * A SandboxTemplate name: a DNS-1123 subdomain.
 */
storageClassName?: string
}
/**
 * A shared package cache: a ReadWriteMany PersistentVolumeClaim (made by the cluster's operator) mounted at /cache, with XDG_CACHE_HOME, npm_config_cache, PIP_CACHE_DIR, GOMODCACHE, GOCACHE and COMPOSER_CACHE_DIR pointing into it. Sandboxes that share a cache can poison it for each other.
 */
cache?: {
claimName: TemplateName
}
/**
 * Labels of the sandbox, Kubernetes label syntax: put on every object of the sandbox (sandbox-kubernetes) and in its state (sandbox-local); list, destroy and gc select by them with -l. create --label adds to them and wins over the spec. The adapters' own keys are refused: osf.*, app.kubernetes.io/managed-by, app.kubernetes.io/component and agents.x-k8s.io/.
 */
labels?: {
[k: string]: string | undefined
}
}
/**
 * An egress entry whose requests are judged by rules: host as a string entry, rules in order (first match wins, a request no rule matches is refused), and an optional reason an agent reads when a request is refused.
 */
export interface EgressEntryWithRules {
host: EgressEntry
/**
 * Rule names are unique within an entry (the C++ validator checks this).
 * 
 * @minItems 1
 * @maxItems 256
 */
rules: [RequestRule, ...(RequestRule)[]]
reason?: ReasonText
mode?: RuleMode
}
/**
 * A secret bound to its hosts. Each of hosts must also be allowed by egress or be an MCP server's host (the C++ validator checks that; a schema cannot). A placeholder sent to another host, or placed where in does not allow, is refused, never replaced. An object with kind is another kind of secret (awsSecret).
 */
export interface BoundSecret {
ref: SecretRef
/**
 * The hosts the secret is for, as egress entries (a wildcard, a port).
 * 
 * @minItems 1
 * @maxItems 64
 */
hosts: [EgressEntry, ...(EgressEntry)[]]
/**
 * Where the placeholder may be replaced: header (a header value as written; the default), basic (inside Authorization: Basic credentials), query and path (the request target, percent-encoded; the far side's access logs then hold the value), body (a JSON, form or text/* body the proxy reads whole, up to --max-mcp-message-bytes).
 * 
 * @minItems 1
 */
in?: [("header" | "basic" | "query" | "path" | "body"), ...(("header" | "basic" | "query" | "path" | "body"))[]]
/**
 * true: a request to hosts must carry the placeholder where in says, and no Authorization (nor a field of the name the placeholder is in) without it; otherwise it is refused (secret-required).
 */
require?: boolean
kind?: {
[k: string]: unknown | undefined
}
}
/**
 * AWS credentials: the sandbox holds placeholder credentials in AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN when sessionToken is given); the proxy checks that a request to one of hosts was signed (Signature Version 4) with them for one of regions and services, and signs it again with these.
 */
export interface AwsSecret {
kind: "aws"
accessKeyId: SecretRef
secretAccessKey: SecretRef
sessionToken?: SecretRef
/**
 * Regions a request may be signed for, as "us-east-1".
 * 
 * @minItems 1
 * @maxItems 32
 */
regions: [AwsWord, ...(AwsWord)[]]
/**
 * Signing names a request may be signed for, as "s3" or "bedrock".
 * 
 * @minItems 1
 * @maxItems 32
 */
services: [AwsWord, ...(AwsWord)[]]
/**
 * Hosts the proxy signs for, as egress entries without a port ("*.s3.amazonaws.com"); each must also be allowed by egress.
 * 
 * @minItems 1
 * @maxItems 32
 */
hosts: [AwsHost, ...(AwsHost)[]]
}
export interface McpServer {
/**
 * Lower-case letters, digits and inner hyphens, 1-63 characters.
 */
name: string
/**
 * http:// or https://, a host name or IPv4 address (as in egress, no wildcard), an optional port, path and query; no user info, no fragment.
 */
url: string
/**
 * The only tools the sandbox may call on this server: a name, or {name, arguments} whose argument rules every tools/call of it must satisfy. A name appears once, however written (the C++ validator checks it across both forms).
 * 
 * @maxItems 256
 */
tools: (McpToolName | McpToolWithArguments)[]
}
/**
 * A tool whose calls are judged by their arguments: every argument named here must be present and pass its one test; arguments not named are not looked at.
 */
export interface McpToolWithArguments {
name: McpToolName
arguments: {
[k: string]: McpArgumentRule | undefined
}
}
/**
 * Exactly one test. equals/in: strings compared after JSON unescaping, numbers and booleans by their JSON value as written; prefix and matches apply to strings only (any other value is refused).
 */
export interface McpArgumentRule {
equals?: McpArgumentValue
/**
 * @minItems 1
 * @maxItems 256
 */
in?: [McpArgumentValue, ...(McpArgumentValue)[]]
prefix?: string
/**
 * A regular expression that must match the whole value, as RE2 reads it (no backreferences, no lookaround). This schema checks JavaScript's syntax (format regex); the C++ validator RE2's, which is what the proxy runs.
 */
matches?: string
}
