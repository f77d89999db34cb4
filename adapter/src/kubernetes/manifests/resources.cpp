#include "kubernetes/manifests/resources.hpp"

#include "kubernetes/manifests/names.hpp"
#include "kubernetes/manifests/suspension.hpp"

namespace osf::kubernetes::manifests {

std::vector<std::string> named_sandbox_objects(const std::string& id) {
    const std::string name = sandbox_name(id);
    const std::string egress = egress_name(id);
    return {std::string(kSandboxWarmPools) + "/" + name,
            std::string(kSandboxTemplates) + "/" + name,
            std::string(kPods) + "/" + name,
            std::string(kPods) + "/" + egress,
            "services/" + egress,
            std::string(kNetworkPolicies) + "/" + egress,
            std::string(kConfigMaps) + "/" + spec_config_name(id),
            std::string(kConfigMaps) + "/" + ca_config_name(id),
            std::string(kConfigMaps) + "/" + upstream_ca_config_name(id),
            std::string(kConfigMaps) + "/" + saved_egress_pod_name(id)};
}

} // namespace osf::kubernetes::manifests
