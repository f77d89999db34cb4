// The sandbox side, agent-sandbox v1beta1: a SandboxTemplate whose pod runs
// behind the egress proxy, a SandboxWarmPool with no replicas (a cold start)
// and the SandboxClaim; plus the ConfigMap with the proxy's CA certificate.
#pragma once

#include "sandbox/sandbox_paths.hpp"
#include "sandbox/sandbox_request.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace osf::kubernetes::manifests {

inline constexpr const char* kSandboxContainer = "sandbox";
inline constexpr const char* kWorkspaceVolume = "workspace";
inline constexpr const char* kCaVolume = "osf-egress-ca";
// In the same ConfigMap (not mounted in the sandbox): the key the proxy's egress
// log checkpoints verify against, for `egress-log --verify` and `destroy --save-log`.
inline constexpr const char* kLogKeyFile = "egress-log-key.pub";

// The names of the variables the overlay set from the spec (its `env` and
// secret placeholders), comma-separated: a later overlay, or a snapshot of
// this sandbox, removes them so that they never follow a copy.
inline constexpr const char* kEnvNamesAnnotation = "osf.sandbox.env-names";
// On the claim: the sandbox's image (its pod template's first container's), so
// that `list` reads claims only, not templates four times their size.
inline constexpr const char* kImageAnnotation = "osf.sandbox.image";
// Seconds between SIGTERM and SIGKILL on destroy: a sandbox holds no state
// worth a longer wait.
inline constexpr int kTerminationGraceSeconds = 5;

// The ConfigMap the sandbox's CA file and ssh client configuration
// (ssh_client_config.hpp) come from; `pem` is empty in --dry-run.
// `pem` is what `egress-proxy ca --with-log-key` prints: the certificate, then
// the log's PUBLIC KEY block, which goes under kLogKeyFile.
nlohmann::json ca_config_map(const sandbox::SandboxRequest& request, const std::string& pem);
// That ConfigMap's `data`: the certificate under kCaFile, the log key under kLogKeyFile.
nlohmann::json ca_config_data(const std::string& pem);

// The pod template for a spec whose `template` is an image: one container,
// `sleep infinity`.
nlohmann::json image_pod_template(const std::string& image);

// `base` (the image pod template, or a SandboxTemplate's podTemplate) with
// everything a sandbox needs laid over it: labels, the workspace, the CA, the
// proxy and CA variables, secret placeholders, resources and hardening.
// Applying it to its own output for another ID gives the same as applying it
// once, so snapshot templates can be used as a spec's `template`.
nlohmann::json sandbox_pod_template(const nlohmann::json& base,
                                    const sandbox::SandboxRequest& request);

// The container's variables in order: the spec's `env`, the secret
// placeholders, HOME (when the sandbox gets its own home directory and the
// spec sets none), then the proxy (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and their
// lower-case forms) and CA variables (which win).
nlohmann::json sandbox_env(const sandbox::SandboxRequest& request);

// The pod's lifecycle fields: no restarts, a shared process namespace, a
// short grace period, no service account token, no service links.
void set_pod_lifecycle(nlohmann::json& pod_spec);

// How the sandbox finds its proxy without DNS: dnsPolicy None with a
// nameserver on the pod's own loopback (a lookup fails at once instead of
// timing out against a resolver the NetworkPolicy blocks), and hostAliases
// mapping the proxy Service's names to its ClusterIP (when known). A
// template's own hostAliases for other names stay.
void set_proxy_resolution(nlohmann::json& pod_spec, const sandbox::SandboxRequest& request);

// kEnvNamesAnnotation's value for this request.
std::string overlay_env_names(const sandbox::SandboxRequest& request);

// Removes from every container of `pod` (a pod template) the variables its
// kEnvNamesAnnotation lists: the spec env and placeholders of the sandbox it
// was made for.
void remove_overlay_env(nlohmann::json& pod);

// SandboxTemplate.spec.networkPolicy: egress only to this sandbox's proxy on
// 8080 (no DNS: a resolver would carry data out past the proxy); no ingress.
// The Service's SOCKS5 port (1080) targets that same 8080, so nothing more is open.
nlohmann::json sandbox_network_policy(const std::string& id);

nlohmann::json sandbox_template(const sandbox::SandboxRequest& request,
                                const nlohmann::json& pod_template);
nlohmann::json sandbox_warm_pool(const sandbox::SandboxRequest& request);
// `image`: kImageAnnotation's value (left out when empty).
nlohmann::json sandbox_claim(const sandbox::SandboxRequest& request, const std::string& image);
// The image of a pod template's first container ("" when it names none).
std::string first_container_image(const nlohmann::json& pod_template);

} // namespace osf::kubernetes::manifests
