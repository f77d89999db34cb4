// The ssh client configuration of a Kubernetes sandbox: a file in the CA
// ConfigMap, mounted (subPath) at /etc/ssh/ssh_config.d/osf-egress.conf,
// which the ssh of Debian, Ubuntu, Fedora and Alpine images includes. Its
// ProxyCommand sends every SSH connection, `git clone git@host:org/repo`
// included, through the sandbox's egress proxy by an HTTP CONNECT. A user's
// image holds no program of the product, so the CONNECT is made by bash
// itself (its /dev/tcp): an image without bash, or whose ssh_config does not
// include ssh_config.d, gets no SSH through the proxy from this file (ALL_PROXY
// still serves SOCKS clients). Pure.
#pragma once

#include <string>

namespace osf::kubernetes::manifests {

inline constexpr const char* kSshConfigKey = "ssh_config";
inline constexpr const char* kSshConfigVolume = "osf-ssh-config";
inline constexpr const char* kSshConfigPath = "/etc/ssh/ssh_config.d/osf-egress.conf";

// `proxy_host`:`proxy_port`: the proxy's HTTP port as the sandbox reaches it.
std::string ssh_client_config(const std::string& proxy_host, int proxy_port);

} // namespace osf::kubernetes::manifests
