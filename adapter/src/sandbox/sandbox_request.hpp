// Everything the manifests of one sandbox are built from.
#pragma once

#include "osf/spec.hpp"
#include "sandbox/lifetime.hpp"
#include "sandbox/secret_plan.hpp"
#include "sandbox/settings.hpp"

#include <string>

namespace osf::sandbox {

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
    // OSF_UPSTREAM_CA_BUNDLE's certificates (PEM), read by the backend that
    // sends them to a proxy it does not start itself; empty without it.
    std::string upstream_ca_pem;
};

} // namespace osf::sandbox
