#include "kubernetes/sandbox_lookup.hpp"

#include "commands/command_errors.hpp"
#include "kubernetes/manifests/names.hpp"
#include "kubernetes/manifests/pod_status.hpp"
#include "kubernetes/manifests/resources.hpp"
#include "kubernetes/manifests/suspension.hpp"
#include "sandbox/labels.hpp"
#include "sandbox/sandbox_id.hpp"

#include <algorithm>

namespace osf::kubernetes {

nlohmann::json first_or_no_sandbox(const nlohmann::json& items, const std::string& id) {
    if (!items.is_array() || items.empty()) throw commands::CommandFailed("no sandbox " + id);
    return items.front();
}

nlohmann::json named_or_no_sandbox(kubectl::Kubectl& kube, const std::string& resource,
                                   const std::string& id) {
    auto object = kube.get(resource, manifests::sandbox_name(id));
    if (!object) throw commands::CommandFailed("no sandbox " + id);
    return std::move(*object);
}

std::string find_sandbox_pod(kubectl::Kubectl& kube, const std::string& id) {
    const auto claim = named_or_no_sandbox(kube, manifests::kSandboxClaims, id);
    const auto metadata = claim.value("metadata", nlohmann::json::object());
    if (metadata.value("annotations", nlohmann::json::object())
            .contains(manifests::kSuspendedAtAnnotation))
        throw commands::CommandFailed("sandbox " + id + " is suspended (resume starts it again)");
    const auto status = manifests::claim_status(claim);
    if (!status.sandbox_name.empty()) return status.sandbox_name;
    return claim.value("metadata", nlohmann::json::object())
        .value("name", manifests::sandbox_name(id));
}

void remove_sandbox(kubectl::Kubectl& kube, const std::string& id) {
    // The real values go first; if this is stopped midway, what is left still
    // carries the label by which destroy and gc find the sandbox.
    kube.delete_without_waiting(manifests::kSecrets, manifests::secret_name(id));
    const bool had_claim = kube.exists(manifests::kSandboxClaims, manifests::sandbox_name(id));
    // The claim, then its Sandbox, each with its dependents and waited for: a
    // cluster's garbage collector is asynchronous, and while a Sandbox exists
    // its controller makes a pod again for the one deleted by name.
    kube.delete_with_dependents(manifests::kSandboxClaims, manifests::sandbox_name(id));
    kube.delete_with_dependents(manifests::kSandboxes, manifests::sandbox_name(id));
    kube.delete_all_named(manifests::named_sandbox_objects(id));
    if (!had_claim) kube.delete_by_label(manifests::kSandboxResources, sandbox::id_selector(id));
}

void remove_sandboxes(kubectl::Kubectl& kube, const std::vector<std::string>& ids) {
    if (ids.empty()) return;
    std::vector<std::string> secrets;
    std::vector<std::string> names;
    std::vector<std::string> objects;
    for (const auto& id : ids) {
        secrets.push_back(manifests::secret_name(id));
        names.push_back(manifests::sandbox_name(id));
        for (auto& object : manifests::named_sandbox_objects(id))
            objects.push_back(std::move(object));
    }
    // The same order as remove_sandbox, step by step over the batch.
    kube.delete_without_waiting(manifests::kSecrets, secrets);
    const auto claims = kube.existing(manifests::kSandboxClaims, names);
    kube.delete_with_dependents(manifests::kSandboxClaims, names);
    kube.delete_with_dependents(manifests::kSandboxes, names);
    kube.delete_all_named(objects);
    std::string without_claim;
    for (const auto& id : ids)
        if (std::find(claims.begin(), claims.end(), manifests::sandbox_name(id)) == claims.end())
            without_claim += (without_claim.empty() ? "" : ",") + id;
    if (!without_claim.empty())
        kube.delete_by_label(manifests::kSandboxResources,
                             std::string(sandbox::kSandboxIdLabel) + " in (" + without_claim + ")");
}

} // namespace osf::kubernetes
