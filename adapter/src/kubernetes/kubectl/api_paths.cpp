#include "kubernetes/kubectl/api_paths.hpp"

namespace osf::kubernetes::kubectl {

namespace {

struct Known {
    const char* resource;
    const char* prefix; // the group version's path
    const char* plural;
    const char* kind;
};

// The versions the adapter writes (manifests' apiVersion): the served
// storage versions of agent-sandbox and the core kinds.
constexpr Known kKnown[] = {
    {"sandboxclaims.v1beta1.extensions.agents.x-k8s.io", "/apis/extensions.agents.x-k8s.io/v1beta1",
     "sandboxclaims", "SandboxClaim"},
    {"sandboxtemplates.v1beta1.extensions.agents.x-k8s.io",
     "/apis/extensions.agents.x-k8s.io/v1beta1", "sandboxtemplates", "SandboxTemplate"},
    {"sandboxwarmpools.v1beta1.extensions.agents.x-k8s.io",
     "/apis/extensions.agents.x-k8s.io/v1beta1", "sandboxwarmpools", "SandboxWarmPool"},
    {"sandboxes.v1beta1.agents.x-k8s.io", "/apis/agents.x-k8s.io/v1beta1", "sandboxes", "Sandbox"},
    {"networkpolicies.v1.networking.k8s.io", "/apis/networking.k8s.io/v1", "networkpolicies",
     "NetworkPolicy"},
    {"pods", "/api/v1", "pods", "Pod"},
    {"services", "/api/v1", "services", "Service"},
    {"configmaps", "/api/v1", "configmaps", "ConfigMap"},
    {"persistentvolumeclaims", "/api/v1", "persistentvolumeclaims", "PersistentVolumeClaim"},
};

} // namespace

std::optional<Collection> collection(const std::string& resource, const std::string& ns) {
    for (const auto& known : kKnown)
        if (resource == known.resource)
            return Collection{std::string(known.prefix) + "/namespaces/" + ns + "/" + known.plural,
                              known.kind};
    return std::nullopt;
}

std::string query_escape(const std::string& selector) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (const unsigned char c : selector) {
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                           (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~';
        if (plain) {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 0xF];
        }
    }
    return out;
}

} // namespace osf::kubernetes::kubectl
