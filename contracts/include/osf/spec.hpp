// The sandbox spec (contracts/sandbox-spec.schema.json) as C++ types, and the
// validator that turns JSON text into them. Shared by egress-proxy and
// sandbox-kubernetes; no I/O here.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace osf {

// One rule of an `egress` entry written as an object: which requests to the
// entry's host it allows or denies. Empty `methods` or `paths` match any.
struct RequestRule {
    std::vector<std::string> methods; // upper case; "read-only" is GET, HEAD, OPTIONS
    bool read_only = false;           // written as "read-only" (for messages)
    std::vector<std::string> paths;   // "/a/b", "/a/*" (below /a), "/a/*/c" (one segment)
    // Query parameters the request must carry exactly once with this value
    // (percent-decoded): {"service": "git-upload-pack"}.
    std::vector<std::pair<std::string, std::string>> query;
    bool allow = true;  // `allow: true`, or `deny: true`
    std::string name;   // `name`, or "<entry name>#<index>"
    std::string reason; // `reason`: words for the refusal an agent reads
};

// One `egress` entry. `host` is lower case without a trailing dot; a wildcard
// entry keeps its "*." prefix ("*.example.com"). `port` is set when the entry
// names one ("host:8443"). An entry written as an object carries `rules`:
// requests there are judged by them, first match wins, no match refuses.
struct EgressRule {
    std::string host;
    std::optional<std::uint16_t> port;
    bool has_rules = false; // written as {"host", "rules"}
    std::vector<RequestRule> rules{};
    std::string reason{}; // the entry's `reason`
    // `mode`: "audit" (true): what the rules would refuse is let through and
    // logged with `wouldRefuse`; "enforce" (false); unset: the spec's `mode`.
    std::optional<bool> audit{};
    bool wildcard() const { return host.starts_with("*."); }
};

// One `secrets` value: "ref:file/<name>", "ref:env/<NAME>" or "ref:openbao/<path>".
struct SecretRef {
    enum class Kind { File, Env, OpenBao };
    Kind kind;
    std::string target; // <name>, <NAME> or <path>
    std::string text;   // the reference as written, for messages
};

// One `secrets` value of kind "aws": credentials the proxy signs AWS
// Signature Version 4 requests with, in place of the placeholder credentials
// the sandbox holds (osf/aws_placeholder.hpp).
struct AwsSecret {
    SecretRef access_key_id;
    SecretRef secret_access_key;
    std::optional<SecretRef> session_token;
    std::vector<std::string> regions;  // as written ("us-east-1")
    std::vector<std::string> services; // signing names ("s3", "bedrock")
    std::vector<std::string> hosts;    // lower case; "*.domain" for its subdomains
};

// Where a secret's placeholder may be replaced (`in`): a set of these bits.
enum class SecretPlace : std::uint8_t {
    header = 1, // a header value as written
    basic = 2,  // inside `Authorization: Basic` credentials (decoded, re-encoded)
    query = 4,  // the request target's query (percent-encoded)
    path = 8,   // the request target's path (percent-encoded)
    body = 16,  // a JSON, form or text body read whole
};
inline constexpr std::uint8_t secret_places(SecretPlace p) {
    return static_cast<std::uint8_t>(p);
}

// How a secret is bound (`secrets.NAME` as an object). The string form is
// bound to every `egress` host, in header values and Basic credentials.
struct SecretBinding {
    std::vector<EgressRule> hosts; // empty: every egress host (the string form)
    std::uint8_t in = secret_places(SecretPlace::header) | secret_places(SecretPlace::basic);
    bool require = false; // a request to `hosts` must carry it, and no other credential
    bool bound() const { return !hosts.empty(); }
    bool allows(SecretPlace place) const { return (in & secret_places(place)) != 0; }
};

// One argument rule of an MCP tool written as {"name", "arguments"}: what the
// named argument of a tools/call must be. Exactly one test per argument.
struct ToolArgumentRule {
    enum class Test { equals, in, matches, prefix };
    std::string argument; // the argument's name (a member of params.arguments)
    Test test = Test::equals;
    // equals/in: the allowed values, each as a JSON text (strings quoted:
    // "\"acme\"", numbers and booleans as nlohmann dumps them: "3", "true");
    // matches: the pattern (anchored: it must match the whole value); prefix: the prefix.
    std::vector<std::string> values;
};

// A tool written as an object: its name and the rules its calls' arguments
// must satisfy (every rule; arguments no rule names are not looked at).
struct McpToolRule {
    std::string name;
    std::vector<ToolArgumentRule> arguments;
};

// One `mcp` entry. The URL is split for matching; `host` is normalised like
// egress hosts, `port` is explicit or the scheme's default, `path` is never
// empty ("/" at least).
struct McpServer {
    std::string name;
    std::string url;
    std::string scheme; // "http" | "https"
    std::string host;
    std::uint16_t port = 0;
    std::string path;
    std::vector<std::string> tools;        // every tool's name, however written
    std::vector<McpToolRule> tool_rules{}; // the tools written as {"name", "arguments"}
};

// `user`: the non-root identity the sandbox runs as (uid 1-2147483647, gid
// 0-2147483647, the range Kubernetes accepts).
struct SandboxUser {
    std::int64_t uid = 0;
    std::int64_t gid = 0;
};

// `persistence`: /workspace and the home directory on a per-sandbox
// ReadWriteOnce claim instead of emptyDirs (what suspend/resume keep).
struct Persistence {
    std::string size;                         // a quantity ("10Gi")
    std::optional<std::string> storage_class; // the cluster's default when unset
};

// `cache`: a ReadWriteMany claim shared by the sandboxes that name it,
// mounted at /cache with the package managers' cache variables pointing there.
struct PackageCache {
    std::string claim_name;
};

// One `tcp` entry: a destination the sandbox may reach with raw TCP (a
// CONNECT or SOCKS5 tunnel relayed byte for byte, never intercepted). `host`
// is normalised like an egress entry's ("*.domain" kept as written).
struct TcpDestination {
    std::string host;
    std::uint16_t port = 0;
    bool wildcard() const { return host.starts_with("*."); }
};

struct Spec {
    std::string template_name;         // `template`; empty: the adapter's default
    std::optional<std::string> cpu;    // a number is kept as written ("2", "0.5")
    std::optional<std::string> memory; // a quantity ("4Gi")
    std::map<std::string, std::string> env;
    std::vector<EgressRule> egress;
    std::vector<TcpDestination> tcp; // `tcp`: "host:port" entries
    // `mode`: "enforce" (the default) or "audit": the rules of every entry that
    // does not say otherwise audit.
    bool audit = false;
    std::map<std::string, SecretRef> secrets;
    std::map<std::string, AwsSecret> aws_secrets; // `secrets` members of kind "aws"
    // Every secret's binding, same keys as `secrets`.
    std::map<std::string, SecretBinding> secret_bindings;
    std::vector<McpServer> mcp;
    // Hardening and storage (sandbox-kubernetes only; the proxy ignores them).
    std::optional<SandboxUser> user;    // `user`
    bool read_only_root = false;        // `readOnlyRoot`
    std::optional<std::string> storage; // `storage`, a quantity ("10Gi")
    // `tmpSize`: the memory-backed /tmp ("512Mi"); the adapter's default when unset.
    std::optional<std::string> tmp_size;
    // `lifetime`: how long the sandbox may live; unset means the adapter's
    // default (OSF_SANDBOX_DEFAULT_LIFETIME).
    std::optional<std::chrono::seconds> lifetime;
    std::optional<Persistence> persistence;
    std::optional<PackageCache> cache;
    // `labels`: put on every object of the sandbox and in its local state; `list`,
    // `destroy` and `gc` select by them (osf/label_syntax.hpp says which are valid).
    std::map<std::string, std::string> labels;

    // True when `template` names an image (holds '/', ':' or '@').
    bool template_is_image() const;
};

// A validation error. `path` is a JSONPath into the document: "$",
// "$.egress[2]", "$.secrets.TOKEN", "$.mcp[0].tools[1]".
struct SpecError {
    std::string path;
    std::string message;
    std::string to_string() const { return path + ": " + message; }
};

struct SpecResult {
    std::optional<Spec> spec; // set when errors is empty
    std::vector<SpecError> errors;
    bool ok() const { return errors.empty(); }
};

// What a reading of a spec holds it to beyond its own text.
struct SpecOptions {
    // Each bound secret's hosts must be reachable (allowed by `egress`, or an
    // MCP server's host): where a spec is written (create, osf-spec-check).
    // Off where a running sandbox's spec is read again (the proxy's start, a
    // policy change, a supervisor's restart): a revoke may narrow `egress`
    // below a binding, which only tightens, and must not leave a spec that no
    // longer starts.
    bool bound_hosts_reachable = true;
};

// Parses and validates JSON text. JSON syntax errors, duplicate keys, unknown
// fields, wrong types and bad names are all errors; every error is reported,
// not just the first.
SpecResult parse_spec(std::string_view json_text, SpecOptions options = {});

// A reading of a running sandbox's spec (SpecOptions::bound_hosts_reachable off).
inline SpecResult parse_running_spec(std::string_view json_text) {
    return parse_spec(json_text, SpecOptions{.bound_hosts_reachable = false});
}

// One line per secret bound to every egress host (the string form): advice to
// name its `hosts`, for `create` and the spec checker. Empty when none.
std::vector<std::string> spec_warnings(const Spec& spec);

// The placeholder the sandbox holds for secret NAME.
inline std::string secret_placeholder(std::string_view name) {
    return "osf-secret-placeholder-" + std::string(name);
}

} // namespace osf
