#include "kubernetes/manifests/required_permissions.hpp"

namespace osf::kubernetes::manifests {

const std::vector<RequiredPermission>& required_permissions() {
    static const std::vector<RequiredPermission> permissions = {
        {"", "pods", {"create", "delete", "get", "list", "watch"}},
        {"", "pods/exec", {"create", "get"}},
        {"", "services", {"create", "delete", "get", "list", "watch"}},
        {"", "configmaps", {"create", "delete", "get", "list", "patch", "watch"}},
        {"", "secrets", {"create", "delete"}},
        {"", "persistentvolumeclaims", {"create", "delete", "get", "list", "watch"}},
        {"", "events", {"list"}},
        {"networking.k8s.io", "networkpolicies", {"create", "delete", "get", "list", "watch"}},
        {"extensions.agents.x-k8s.io",
         "sandboxtemplates",
         {"create", "delete", "get", "list", "watch"}},
        {"extensions.agents.x-k8s.io",
         "sandboxwarmpools",
         {"create", "delete", "get", "list", "watch"}},
        {"extensions.agents.x-k8s.io",
         "sandboxclaims",
         {"create", "delete", "get", "list", "patch", "watch"}},
        {"agents.x-k8s.io", "sandboxes", {"delete", "get", "list", "patch", "watch"}},
        {"batch", "cronjobs", {"list"}},
        {"batch", "jobs", {"list"}},
    };
    return permissions;
}

std::vector<std::string> can_i_args(const RequiredPermission& permission, const std::string& verb) {
    const auto slash = permission.resource.find('/');
    std::string resource = permission.resource.substr(0, slash);
    if (!permission.group.empty()) resource += "." + permission.group;
    std::vector<std::string> args = {"can-i", verb, resource};
    if (slash != std::string::npos)
        args.push_back("--subresource=" + permission.resource.substr(slash + 1));
    return args;
}

} // namespace osf::kubernetes::manifests
