// The Kubernetes API permissions sandbox-kubernetes' commands use in their
// namespace: what `doctor` asks `kubectl auth can-i` about. The chart's
// files/adapter-permissions.yaml says why each is needed and renders the Role;
// tests/integration/test_chart.py checks that the two lists are the same.
#pragma once

#include <string>
#include <vector>

namespace osf::kubernetes::manifests {

struct RequiredPermission {
    std::string group;    // "" for the core group
    std::string resource; // plural, with "/subresource" for one
    std::vector<std::string> verbs;
};

const std::vector<RequiredPermission>& required_permissions();

// kubectl auth can-i's arguments for one verb: {"can-i", verb, "pods",
// "--subresource=exec"} (resource qualified by its group when it has one).
std::vector<std::string> can_i_args(const RequiredPermission& permission, const std::string& verb);

} // namespace osf::kubernetes::manifests
