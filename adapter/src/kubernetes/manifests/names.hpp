// Object names, all derived from the sandbox ID so that nothing needs to be
// remembered outside the cluster.
#pragma once

#include "sandbox/sandbox_id.hpp"

#include <string>

namespace osf::kubernetes::manifests {

// SandboxTemplate, SandboxWarmPool and SandboxClaim (and the Sandbox and pod
// the controller makes for a cold-started claim).
inline std::string sandbox_name(const std::string& id) {
    return "osf-sandbox-" + id;
}
// The egress pod, its Service and its NetworkPolicy.
inline std::string egress_name(const std::string& id) {
    return sandbox_name(id) + "-egress";
}
inline std::string secret_name(const std::string& id) {
    return sandbox_name(id) + "-secrets";
}
inline std::string spec_config_name(const std::string& id) {
    return sandbox_name(id) + "-spec";
}
inline std::string ca_config_name(const std::string& id) {
    return sandbox_name(id) + "-ca";
}
inline std::string upstream_ca_config_name(const std::string& id) {
    return sandbox_name(id) + "-upstream-ca";
}
// The snapshot's PVC and SandboxTemplate.
using sandbox::snapshot_name;
// The short-lived pod that receives /workspace into the snapshot's PVC.
inline std::string snapshot_copy_pod_name(const std::string& id, const std::string& stamp) {
    return snapshot_name(id, stamp) + "-copy";
}

} // namespace osf::kubernetes::manifests
