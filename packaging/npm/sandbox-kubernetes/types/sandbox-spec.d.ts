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
 * ref:file/<name> (a file name in OSF_SECRETS_DIR, not '.' or '..', at most 255 characters), ref:env/<NAME> (the proxy's variable OSF_SECRET_<NAME>) or ref:openbao/<path> (a KV v2 path of non-empty segments, none '.' or '..').
 */
export type SecretRef = string | undefined

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
 * Hosts the sandbox may reach: "host", "*.domain" (every subdomain, not the domain itself), optionally ":port"; or an IPv4 address.
 * 
 * @maxItems 256
 */
egress?: EgressEntry[]
/**
 * Secrets the proxy substitutes for placeholders, NAME -> reference.
 */
secrets?: {
[k: string]: SecretRef | undefined
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
 * The only tools the sandbox may call on this server.
 * 
 * @maxItems 256
 */
tools: string[]
}
