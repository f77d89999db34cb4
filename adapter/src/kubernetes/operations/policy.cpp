#include "kubernetes/operations/policy.hpp"

#include "commands/command_errors.hpp"
#include "kubernetes/ca_refresh.hpp"
#include "kubernetes/manifests/egress_objects.hpp"
#include "kubernetes/manifests/names.hpp"
#include "kubernetes/manifests/resources.hpp"
#include "kubernetes/manifests/sandbox_objects.hpp"
#include "kubernetes/manifests/suspension.hpp"
#include "kubernetes/proxy_ca.hpp"
#include "kubernetes/proxy_policy.hpp"
#include "kubernetes/sandbox_state.hpp"
#include "sandbox/sandbox_paths.hpp"
#include "sandbox/settings.hpp"

namespace osf::kubernetes {

using commands::CommandFailed;

namespace {

// The spec goes on stdin (kubectl reads the patch from it): a command line
// holds one argument of at most 128 KiB, a ConfigMap up to 1 MiB.
void store_spec(kubectl::Kubectl& kube, const std::string& id, const std::string& spec_text) {
    kubectl::KubectlCall call;
    call.args = {"patch",       "configmaps",   manifests::spec_config_name(id),
                 "--namespace", kube.ns(),      "--type",
                 "merge",       "--patch-file", "/dev/stdin"};
    call.input = manifests::spec_config_patch(spec_text).dump();
    kube.run_checked(call);
}

// The certificate part of a CA ConfigMap's data (what the sandbox mounts).
std::string ca_certificate_of(const nlohmann::json& data) {
    if (!data.is_object()) return "";
    return data.value(sandbox::kCaFile, std::string());
}

// The proxy's CA bundle (a new CA when the change admitted names its CAs may
// not sign for): the sandbox's processes started from now on trust it.
// Returns the certificate when it holds one the stored did not, else "".
std::string store_ca(kubectl::Kubectl& kube, const std::string& id) {
    const std::string pem = read_proxy_ca(kube, id);
    const std::string certificate = ca_certificate_of(manifests::ca_config_data(pem));
    const auto stored = kube.get("configmaps", manifests::ca_config_name(id));
    const std::string before =
        stored ? ca_certificate_of(stored->value("data", nlohmann::json::object())) : "";
    kubectl::KubectlCall call;
    call.args = {"patch",       "configmaps", manifests::ca_config_name(id),
                 "--namespace", kube.ns(),    "--type",
                 "merge",       "-p",         manifests::ca_patch(pem).dump()};
    kube.run_checked(call);
    return adds_certificate(before, certificate) ? certificate : "";
}

std::string pod_phase(const nlohmann::json& pod) {
    return pod.value("status", nlohmann::json::object()).value("phase", std::string());
}

} // namespace

sandbox::PolicyChangeResult change_sandbox_policy(OperationContext& context, const std::string& id,
                                                  const osf::policy_edit::Edit& edit,
                                                  const std::string& by) {
    const auto settings = sandbox::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const SandboxState state = find_sandbox_state(kube, id);
    const std::string config_name = manifests::spec_config_name(id);
    const auto config = kube.get("configmaps", config_name);
    const auto before = config ? manifests::spec_text_of(*config) : std::nullopt;
    if (!before)
        throw CommandFailed("sandbox " + id + " has no spec in ConfigMap " + config_name +
                            "; nothing changed");
    const auto edited = osf::policy_edit::apply(*before, edit);
    if (!edited.ok()) {
        std::string message = edited.errors.front();
        if (edited.errors.size() > 1)
            message += " (and " + std::to_string(edited.errors.size() - 1) + " more)";
        throw commands::UsageError(message);
    }
    sandbox::PolicyChangeResult result{edited.changed, edited.unchanged, 0, false};
    if (edited.changed.empty()) return result;

    const std::string egress = manifests::egress_name(id);
    const auto pod = kube.get(manifests::kPods, egress);
    if (!pod) {
        if (!manifests::sandbox_suspended(state.sandbox))
            throw CommandFailed("sandbox " + id + " has no egress pod (" + egress +
                                ") and is not suspended; nothing changed");
        // Suspended: resume starts the next proxy from the spec ConfigMap.
        store_spec(kube, id, edited.spec_text);
        return result;
    }
    if (pod_phase(*pod) != "Running")
        throw CommandFailed("sandbox " + id + ": its egress pod " + egress + " is " +
                            (pod_phase(*pod).empty() ? "not running" : pod_phase(*pod)) +
                            "; nothing changed");

    // The running proxy first: it may refuse, and then nothing is stored.
    kubectl::KubectlCall call;
    call.args = {"exec", "-i", egress, "--namespace", settings.ns, "-c", manifests::kProxyContainer,
                 "--"};
    for (auto& word : proxy_policy_command(by))
        call.args.push_back(std::move(word));
    call.input = edited.spec_text;
    const auto answer = read_proxy_policy_answer(kube.runner().run(call));
    using Outcome = ProxyPolicyAnswer::Outcome;
    if (answer.outcome == Outcome::refused)
        throw CommandFailed("sandbox " + id + ": its egress proxy refused the change (" +
                            answer.reason + "); nothing changed");
    if (answer.outcome == Outcome::unreachable)
        throw CommandFailed("sandbox " + id + ": its egress proxy cannot be reached (" +
                            answer.reason + "); nothing changed");
    result.generation = answer.generation;
    result.live = true;
    // The CA before the spec: while the spec ConfigMap lacks the change, the
    // same command run again sends it to the proxy again (which finds it in
    // force and answers with no difference) and stores both.
    std::string new_certificate;
    try {
        new_certificate = store_ca(kube, id);
        store_spec(kube, id, edited.spec_text);
    } catch (const std::exception& e) {
        throw CommandFailed("sandbox " + id + ": its egress proxy applied the change (policy " +
                            std::to_string(answer.generation) + ") but it was not stored: " +
                            e.what() + "; run the same command again to store it");
    }
    // "In force now" holds only once the sandbox trusts the CA that signs for
    // the new host.
    if (!new_certificate.empty()) wait_until_sandbox_trusts(context, kube, id, new_certificate);
    return result;
}

} // namespace osf::kubernetes
