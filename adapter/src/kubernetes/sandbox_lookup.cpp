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

namespace {

// `kubectl delete <resource> <name>... [flags]`, not-found ignored.
void delete_names(kubectl::Kubectl& kube, const std::string& resource,
                  const std::vector<std::string>& names, std::vector<std::string> flags) {
    kubectl::KubectlCall call;
    call.args = {"delete", resource};
    call.args.insert(call.args.end(), names.begin(), names.end());
    call.args.insert(call.args.end(), {"--namespace", kube.ns(), "--ignore-not-found"});
    call.args.insert(call.args.end(), flags.begin(), flags.end());
    kube.run_checked(call);
}

// Which of the claims named exist (one get naming them all), by name.
std::vector<std::string> existing_claims(kubectl::Kubectl& kube,
                                         const std::vector<std::string>& names) {
    kubectl::KubectlCall call;
    call.args = {"get", manifests::kSandboxClaims};
    call.args.insert(call.args.end(), names.begin(), names.end());
    call.args.insert(call.args.end(),
                     {"--namespace", kube.ns(), "--ignore-not-found", "-o", "name"});
    const std::string out = kube.run_checked(call).out;
    std::vector<std::string> found;
    std::size_t start = 0;
    while (start < out.size()) {
        auto end = out.find('\n', start);
        if (end == std::string::npos) end = out.size();
        std::string line = out.substr(start, end - start);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
            line.pop_back();
        // "<kind>.<group>/<name>"
        if (const auto slash = line.rfind('/'); slash != std::string::npos)
            found.push_back(line.substr(slash + 1));
        start = end + 1;
    }
    return found;
}

} // namespace

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
    delete_names(kube, manifests::kSecrets, secrets, {"--wait=false"});
    const auto claims = existing_claims(kube, names);
    delete_names(kube, manifests::kSandboxClaims, names, {"--cascade=foreground"});
    delete_names(kube, manifests::kSandboxes, names, {"--cascade=foreground"});
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
