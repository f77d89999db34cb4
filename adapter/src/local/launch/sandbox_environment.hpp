// The environments of a local sandbox and of its proxy. Pure: what the
// sandbox sees is decided here and nowhere else.
#pragma once

#include "sandbox/sandbox_request.hpp"

#include <string>
#include <utility>
#include <vector>

namespace osf::local {

using Environment = std::vector<std::pair<std::string, std::string>>;

// Where the sandbox reaches its proxy: its own loopback, as on Kubernetes it
// reaches its proxy's Service.
inline constexpr const char* kSandboxProxyUrl = "http://127.0.0.1:8080";
inline constexpr int kSandboxProxyPort = 8080;
// The same proxy as SOCKS5 (it tells the two apart by a connection's first
// byte): for clients that speak only SOCKS, and raw TCP to the spec's `tcp`
// destinations. socks5h: names are resolved by the proxy, never inside.
inline constexpr const char* kSandboxSocksUrl = "socks5h://127.0.0.1:1080";
inline constexpr int kSandboxSocksPort = 1080;

// The sandbox's variables, in order: a fixed base (PATH, HOME=/workspace,
// LANG), the spec's `env`, the secret placeholders, then the proxy (HTTP_PROXY,
// HTTPS_PROXY, ALL_PROXY and their lower-case forms) and CA variables, which
// win as on Kubernetes. Nothing comes from the caller's
// environment.
Environment sandbox_environment(const sandbox::SandboxRequest& request);

// The proxy's variables: only what it needs to resolve the spec's secrets and
// names (OSF_SECRET_<NAME> of the spec's ref:env secrets, OSF_SECRETS_DIR,
// OSF_OPENBAO_*, OSF_SANDBOX_HOST_ALIASES, OSF_UPSTREAM_CA_BUNDLE), taken from
// `caller` (the environment create ran with).
Environment proxy_environment(const sandbox::SandboxRequest& request,
                              const sandbox::EnvLookup& caller);

// "NAME=value" strings for execve.
std::vector<std::string> to_envp(const Environment& environment);

} // namespace osf::local
