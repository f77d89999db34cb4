// Everything the manifests of one sandbox are built from.
#pragma once

#include "manifests/lifetime.hpp"
#include "manifests/secret_plan.hpp"
#include "manifests/settings.hpp"
#include "osf/spec.hpp"

#include <string>

namespace osf::manifests {

struct SandboxRequest {
    std::string id;
    osf::Spec spec;
    std::string spec_text; // the spec file as given: the egress proxy reads it
    Settings settings;
    SecretPlan secrets;
    Lifetime lifetime; // created, expires, the pods' deadline
    // The egress Service's ClusterIP, which the sandbox pod's hostAliases map
    // the proxy's name to (the sandbox has no DNS). Known once the Service
    // exists: empty for --dry-run and the admission probe.
    std::string egress_service_ip;
};

} // namespace osf::manifests
