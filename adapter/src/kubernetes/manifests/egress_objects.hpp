// The egress side of a sandbox: the proxy pod, what it reads (its spec and
// its secrets), the Service the sandbox reaches it by, and the NetworkPolicy
// that admits only that sandbox.
#pragma once

#include "sandbox/sandbox_request.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace osf::kubernetes::manifests {

inline constexpr const char* kProxyContainer = "egress-proxy";
// Where the project's image (images/egress-proxy) holds the proxy; absolute, because
// the image is FROM scratch and may define no PATH.
inline constexpr const char* kProxyBinary = "/usr/local/bin/egress-proxy";
inline constexpr int kProxyPort = 8080;
// The Service's SOCKS5 port: the same container port as kProxyPort (the proxy
// tells SOCKS5 from HTTP by a connection's first byte), so the NetworkPolicies,
// which match the pod's port, admit it with nothing more opened.
inline constexpr int kSocksPort = 1080;
inline constexpr int kAdminPort = 9090;
// An emptyDir: the root file system is read-only, the CA certificate and the
// egress log live here.
inline constexpr const char* kProxyStateDir = "/var/lib/egress-proxy";
inline constexpr const char* kProxySpecDir = "/etc/osf/spec";
inline constexpr const char* kProxySpecFile = "spec.json";
// OSF_UPSTREAM_CA_BUNDLE's certificates, a ConfigMap only the egress pod mounts.
inline constexpr const char* kUpstreamCaDir = "/etc/osf/upstream-ca";
inline constexpr const char* kUpstreamCaFile = "upstream-ca.crt";
// Where the Secret's file.<name> keys appear as <name>: the proxy's OSF_SECRETS_DIR.
inline constexpr const char* kProxySecretsDir = "/run/secrets/osf";
// The proxy image's user (distroless "nonroot").
inline constexpr int kProxyUid = 65532;
// The proxy's own bounds, apart from the sandbox's: one worker thread by
// default (a CPU limit of 1 costs it nothing), its memory, and its state
// directory (the egress log grows there; past the limit the pod is evicted).
inline constexpr const char* kProxyStateSizeLimit = "1Gi";

// The Secret as --dry-run shows it: every value replaced by its placeholder
// text, and without its owner reference (the spec ConfigMap's uid exists only
// once create made it).
nlohmann::json egress_secret_preview(const sandbox::SandboxRequest& request);
// The spec file, unchanged, for the proxy's --spec.
nlohmann::json spec_config_map(const sandbox::SandboxRequest& request);
// allow and revoke: the spec ConfigMap's merge patch to a changed spec (what
// an egress pod started after it, by resume, runs), and the spec it holds
// (nullopt when it holds none).
nlohmann::json spec_config_patch(const std::string& spec_text);
std::optional<std::string> spec_text_of(const nlohmann::json& config_map);
// The upstream CA ConfigMap (request.upstream_ca_pem must not be empty).
nlohmann::json upstream_ca_config_map(const sandbox::SandboxRequest& request);
// With request.upstream_ca_pem, the proxy gets --upstream-ca from the
// upstream CA ConfigMap; with OSF_SANDBOX_IMAGE_PULL_POLICY, its pull policy.
nlohmann::json egress_pod(const sandbox::SandboxRequest& request);
// Two ports, proxy (8080) and socks (1080), both to the container's 8080.
nlohmann::json egress_service(const sandbox::SandboxRequest& request);
// Ingress-only: the proxy itself must reach the internet and DNS.
nlohmann::json egress_network_policy(const sandbox::SandboxRequest& request);

// The proxy's URL as the sandbox sees it: http://osf-sandbox-<ID>-egress:8080
std::string proxy_url(const std::string& id);
// ALL_PROXY as the sandbox sees it: socks5h://osf-sandbox-<ID>-egress:1080
// (socks5h: destination names are resolved by the proxy).
std::string socks_url(const std::string& id);

} // namespace osf::kubernetes::manifests
