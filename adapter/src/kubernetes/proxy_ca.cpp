#include "kubernetes/proxy_ca.hpp"

#include "commands/command_errors.hpp"
#include "kubernetes/manifests/egress_objects.hpp"
#include "kubernetes/manifests/names.hpp"

namespace osf::kubernetes {

std::string read_proxy_ca(kubectl::Kubectl& kube, const std::string& id) {
    const std::string pem = kube.exec_output(manifests::egress_name(id), manifests::kProxyContainer,
                                             {manifests::kProxyBinary, "ca", "--with-log-key",
                                              "--state-dir", manifests::kProxyStateDir});
    if (pem.find("-----BEGIN CERTIFICATE-----") == std::string::npos)
        throw commands::CommandFailed("the egress proxy printed no CA certificate");
    if (pem.find("-----BEGIN PUBLIC KEY-----") == std::string::npos)
        throw commands::CommandFailed("the egress proxy printed no egress log key");
    return pem;
}

} // namespace osf::kubernetes
