#include "kubernetes/manifests/doctor_checks.hpp"

#include "kubernetes/manifests/network_isolation.hpp"
#include "kubernetes/manifests/pod_status.hpp"

#include <sstream>
#include <utility>

namespace osf::kubernetes::manifests {

using nlohmann::json;
using Verdict = DoctorCheck::Verdict;

std::string format_check(const DoctorCheck& check) {
    const char* word = check.verdict == Verdict::ok     ? "ok  "
                       : check.verdict == Verdict::warn ? "warn"
                                                        : "FAIL";
    std::string line = std::string(word) + "  " + check.name + ": " + check.detail;
    if (!check.fix.empty()) line += "; fix: " + check.fix;
    return line;
}

int doctor_exit_code(const std::vector<DoctorCheck>& checks) {
    for (const auto& check : checks)
        if (check.verdict == Verdict::fail) return 1;
    return 0;
}

DoctorCheck agent_sandbox_check(const std::string& api_versions) {
    std::vector<std::string> missing;
    for (const char* needed : {"agents.x-k8s.io/v1beta1", "extensions.agents.x-k8s.io/v1beta1"}) {
        bool found = false;
        std::istringstream lines(api_versions);
        for (std::string line; std::getline(lines, line);)
            if (line == needed) found = true;
        if (!found) missing.push_back(needed);
    }
    if (missing.empty())
        return {Verdict::ok, "agent-sandbox",
                "agents.x-k8s.io/v1beta1 and extensions.agents.x-k8s.io/v1beta1 are served", ""};
    std::string list;
    for (const auto& group : missing)
        list += (list.empty() ? "" : ", ") + group;
    return {Verdict::fail, "agent-sandbox", list + " not served",
            "install agent-sandbox v0.5.6 or later with its extensions (kubectl apply -f its "
            "manifest.yaml and extensions.yaml release files)"};
}

DoctorCheck namespace_check(const std::string& ns, const std::optional<json>& object,
                            bool forbidden) {
    if (object) return {Verdict::ok, "namespace", ns + " exists", ""};
    if (forbidden)
        return {Verdict::warn, "namespace",
                "cannot tell whether " + ns + " exists (no permission to read namespaces)", ""};
    return {Verdict::fail, "namespace", ns + " does not exist",
            "kubectl create namespace " + ns + ", or choose one with -n or OSF_SANDBOX_NAMESPACE"};
}

DoctorCheck pod_security_check(const std::string& ns, const std::optional<json>& object) {
    if (!object) return {Verdict::warn, "pod-security", "cannot read " + ns + "'s labels", ""};
    const json labels = object->value("metadata", json::object()).value("labels", json::object());
    const std::string enforce = labels.value("pod-security.kubernetes.io/enforce", "");
    if (enforce == "restricted" || enforce == "baseline")
        return {Verdict::ok, "pod-security", ns + " enforces Pod Security \"" + enforce + "\"", ""};
    return {Verdict::warn, "pod-security",
            ns + (enforce.empty() ? " has no Pod Security enforce label"
                                  : " enforces Pod Security \"" + enforce + "\""),
            "kubectl label namespace " + ns +
                " pod-security.kubernetes.io/enforce=restricted (non-root sandboxes; baseline "
                "for root mode)"};
}

DoctorCheck rbac_check(const std::string& ns, const std::vector<std::string>& denied,
                       std::size_t asked, const std::string& error) {
    if (!error.empty() && denied.empty())
        return {Verdict::fail, "rbac", "cannot ask the API server: " + error,
                "kubectl auth can-i needs a working cluster connection"};
    if (denied.empty())
        return {Verdict::ok, "rbac",
                "all " + std::to_string(asked) + " permissions the commands use are granted in " +
                    ns,
                ""};
    std::string list;
    for (const auto& permission : denied)
        list += (list.empty() ? "" : ", ") + permission;
    return {Verdict::fail, "rbac", "denied in " + ns + ": " + list,
            "install the chart (its Role grants exactly what the commands use), or grant these "
            "to whoever runs sandbox-kubernetes"};
}

std::string gc_cronjob_name(const std::optional<json>& cronjobs) {
    if (!cronjobs || !cronjobs->is_object()) return "";
    for (const auto& cronjob : cronjobs->value("items", json::array())) {
        if (!cronjob.is_object()) continue;
        const json containers = cronjob.value("spec", json::object())
                                    .value("jobTemplate", json::object())
                                    .value("spec", json::object())
                                    .value("template", json::object())
                                    .value("spec", json::object())
                                    .value("containers", json::array());
        for (const auto& container : containers) {
            if (!container.is_object()) continue;
            bool adapter = false, gc = false;
            for (const char* key : {"command", "args"})
                for (const auto& word : container.value(key, json::array())) {
                    if (!word.is_string()) continue;
                    adapter = adapter || word.get<std::string>().find("sandbox-kubernetes") !=
                                             std::string::npos;
                    gc = gc || word == "gc";
                }
            if (adapter && gc) return cronjob.value("metadata", json::object()).value("name", "");
        }
    }
    return "";
}

namespace {

bool owned_by_cronjob(const json& job, const std::string& cronjob) {
    for (const auto& ref :
         job.value("metadata", json::object()).value("ownerReferences", json::array()))
        if (ref.is_object() && ref.value("kind", "") == "CronJob" &&
            ref.value("name", "") == cronjob)
            return true;
    return false;
}

// The Job's condition of `type` when True, else null.
json true_condition(const json& job, const char* type) {
    for (const auto& condition :
         job.value("status", json::object()).value("conditions", json::array()))
        if (condition.is_object() && condition.value("type", "") == type &&
            condition.value("status", "") == "True")
            return condition;
    return nullptr;
}

// "pod P, container C: ErrImagePull: message" for the first of the Job's pods
// that cannot start or has failed; empty when none.
std::string job_pod_problem(const std::string& job, const std::optional<json>& pods) {
    if (!pods || !pods->is_object()) return "";
    for (const auto& pod : pods->value("items", json::array())) {
        if (!pod.is_object()) continue;
        const json labels = pod.value("metadata", json::object()).value("labels", json::object());
        if (labels.value("job-name", "") != job &&
            labels.value("batch.kubernetes.io/job-name", "") != job)
            continue;
        if (const auto failure = pod_start_failure(pod))
            return "pod " + pod.value("metadata", json::object()).value("name", "") +
                   ", container " + failure->container + ": " + failure->reason +
                   (failure->message.empty() ? "" : ": " + failure->message);
    }
    return "";
}

} // namespace

DoctorCheck gc_last_run_check(DoctorCheck check, const std::string& cronjob,
                              const std::optional<json>& jobs, const std::optional<json>& pods) {
    if (!jobs || !jobs->is_object()) {
        check.verdict = Verdict::warn;
        check.detail += "; cannot tell how its last run went (jobs cannot be listed)";
        return check;
    }
    const json items = jobs->value("items", json::array()); // `newest` points into it
    const json* newest = nullptr;
    for (const auto& job : items) {
        if (!job.is_object() || !owned_by_cronjob(job, cronjob)) continue;
        // Newest by creation, then by name (a CronJob's Job names grow with
        // their scheduled time).
        const auto order = [](const json& j) {
            const json metadata = j.value("metadata", json::object());
            return std::make_pair(metadata.value("creationTimestamp", ""),
                                  metadata.value("name", ""));
        };
        if (!newest || order(job) >= order(*newest)) newest = &job;
    }
    if (!newest) {
        check.detail += "; it has not run yet";
        return check;
    }
    const std::string job = newest->value("metadata", json::object()).value("name", "");
    const std::string problem = job_pod_problem(job, pods);
    const json failed = true_condition(*newest, "Failed");
    if (!failed.is_null() || !problem.empty()) {
        check.verdict = Verdict::fail;
        check.detail += "; its last run, Job " + job + ", ";
        if (!failed.is_null()) {
            check.detail += "failed: " + failed.value("reason", std::string("Failed"));
            if (const std::string message = failed.value("message", ""); !message.empty())
                check.detail += ": " + message;
            if (!problem.empty()) check.detail += "; " + problem;
        } else {
            check.detail += "cannot start: " + problem;
        }
        check.fix = "kubectl describe job " + job + " and kubectl logs job/" + job +
                    " say why; until it runs, nothing is cleaned up";
        return check;
    }
    if (!true_condition(*newest, "Complete").is_null())
        check.detail += "; its last run, Job " + job + ", succeeded";
    else
        check.detail += "; its last run, Job " + job + ", is running";
    return check;
}

DoctorCheck gc_check(const std::string& ns, const std::optional<json>& cronjobs) {
    if (!cronjobs)
        return {Verdict::warn, "gc",
                "cannot tell whether a gc CronJob runs in " + ns + " (cronjobs cannot be listed)",
                ""};
    for (const auto& cronjob : cronjobs->value("items", json::array())) {
        const json containers = cronjob.value("spec", json::object())
                                    .value("jobTemplate", json::object())
                                    .value("spec", json::object())
                                    .value("template", json::object())
                                    .value("spec", json::object())
                                    .value("containers", json::array());
        for (const auto& container : containers) {
            std::vector<std::string> words;
            for (const char* key : {"command", "args"})
                for (const auto& word : container.value(key, json::array()))
                    if (word.is_string()) words.push_back(word.get<std::string>());
            bool adapter = false, gc = false;
            for (const auto& word : words) {
                adapter = adapter || word.find("sandbox-kubernetes") != std::string::npos;
                gc = gc || word == "gc";
            }
            if (adapter && gc)
                return {Verdict::ok, "gc",
                        "CronJob " + cronjob.value("metadata", json::object()).value("name", "") +
                            " runs sandbox-kubernetes gc",
                        ""};
        }
    }
    return {Verdict::warn, "gc",
            "no CronJob runs sandbox-kubernetes gc in " + ns +
                ": a create killed midway or a failed sandbox waits for its expiry",
            "helm install the chart (its gc CronJob is on by default), or run "
            "sandbox-kubernetes gc from cron"};
}

DoctorCheck default_deny_check(const std::string& ns, const std::optional<json>& policies) {
    const std::string fix =
        "install the chart with networkPolicy.create=true, or apply a NetworkPolicy in " + ns +
        " selecting osf.sandbox.role=sandbox with policyTypes [Ingress, Egress] and no rules";
    if (!policies)
        return {Verdict::warn, "default-deny", "cannot list the NetworkPolicies of namespace " + ns,
                fix};
    if (const auto name = default_deny_policy(*policies))
        return {Verdict::ok, "default-deny",
                "NetworkPolicy " + *name +
                    " denies sandbox pods' traffic unless their own allows it",
                ""};
    return {Verdict::warn, "default-deny",
            "no NetworkPolicy in " + ns +
                " denies every sandbox pod's egress by default: a sandbox whose own policy is "
                "missing reaches everything",
            fix};
}

DoctorCheck upstream_ca_check(const std::string& path, const std::string& pem,
                              const std::string& problem) {
    if (!problem.empty())
        return {Verdict::fail, "upstream-ca", problem,
                "point OSF_UPSTREAM_CA_BUNDLE at a PEM file of the CA certificates the egress "
                "proxy should trust for upstreams, or unset it"};
    std::size_t count = 0;
    for (auto at = pem.find("-----BEGIN CERTIFICATE-----"); at != std::string::npos;
         at = pem.find("-----BEGIN CERTIFICATE-----", at + 1))
        ++count;
    return {Verdict::ok, "upstream-ca",
            path + ": " + std::to_string(count) + (count == 1 ? " certificate" : " certificates") +
                ", mounted into each egress pod (never the sandbox) from a ConfigMap",
            ""};
}

DoctorCheck network_policy_note() {
    return {Verdict::warn, "network-policy",
            "whether the cluster's network plugin enforces NetworkPolicy cannot be seen from the "
            "API (kindnet and flannel do not; Calico, Cilium and most clouds' do)",
            "create a sandbox and check that `sandbox-kubernetes exec ID -- curl -sS -m 5 "
            "--noproxy '*' http://<another pod's IP>` fails while the proxy's allowed hosts work"};
}

} // namespace osf::kubernetes::manifests
