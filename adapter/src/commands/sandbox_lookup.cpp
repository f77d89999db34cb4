#include "commands/sandbox_lookup.hpp"

#include "commands/command_errors.hpp"
#include "manifests/labels.hpp"
#include "manifests/names.hpp"
#include "manifests/pod_status.hpp"
#include "manifests/resources.hpp"
#include "manifests/sandbox_id.hpp"

namespace osf::commands {

std::string parse_sandbox_id(const std::string& text) {
    auto id = manifests::normalize_sandbox_id(text);
    if (!id) throw UsageError("invalid sandbox ID '" + text + "': expected 12 hex digits");
    return *id;
}

std::string find_sandbox_pod(kubectl::Kubectl& kube, const std::string& id) {
    const auto claim = kube.get(manifests::kSandboxClaims, manifests::sandbox_name(id));
    if (!claim) throw CommandFailed("no sandbox " + id);
    const auto status = manifests::claim_status(*claim);
    return status.sandbox_name.empty() ? manifests::sandbox_name(id) : status.sandbox_name;
}

void remove_sandbox(kubectl::Kubectl& kube, const std::string& id) {
    kube.delete_by_label(manifests::kSandboxResources, manifests::id_selector(id));
    kube.delete_named(manifests::kSandboxes, manifests::sandbox_name(id));
}

} // namespace osf::commands
