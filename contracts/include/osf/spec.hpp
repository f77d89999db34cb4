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
#include <vector>

namespace osf {

// One `egress` entry. `host` is lower case without a trailing dot; a wildcard
// entry keeps its "*." prefix ("*.example.com"). `port` is set when the entry
// names one ("host:8443").
struct EgressRule {
    std::string host;
    std::optional<std::uint16_t> port;
    bool wildcard() const { return host.starts_with("*."); }
};

// One `secrets` value: "ref:file/<name>", "ref:env/<NAME>" or "ref:openbao/<path>".
struct SecretRef {
    enum class Kind { File, Env, OpenBao };
    Kind kind;
    std::string target; // <name>, <NAME> or <path>
    std::string text;   // the reference as written, for messages
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
    std::vector<std::string> tools;
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

struct Spec {
    std::string template_name;         // `template`; empty: the adapter's default
    std::optional<std::string> cpu;    // a number is kept as written ("2", "0.5")
    std::optional<std::string> memory; // a quantity ("4Gi")
    std::map<std::string, std::string> env;
    std::vector<EgressRule> egress;
    std::map<std::string, SecretRef> secrets;
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

// Parses and validates JSON text. JSON syntax errors, duplicate keys, unknown
// fields, wrong types and bad names are all errors; every error is reported,
// not just the first.
SpecResult parse_spec(std::string_view json_text);

// The placeholder the sandbox holds for secret NAME.
inline std::string secret_placeholder(std::string_view name) {
    return "osf-secret-placeholder-" + std::string(name);
}

} // namespace osf
