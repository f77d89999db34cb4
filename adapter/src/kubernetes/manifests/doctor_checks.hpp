// What `sandbox-kubernetes doctor` concludes from what kubectl said: one
// check per line, with the fix. Pure: kubectl's outputs in, lines out, so
// every verdict is table-tested; the calls are in doctor_command.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace osf::kubernetes::manifests {

struct DoctorCheck {
    enum class Verdict { ok, warn, fail };
    Verdict verdict = Verdict::ok;
    std::string name;   // "kubectl", "agent-sandbox", "namespace", ...
    std::string detail; // what was found
    std::string fix;    // what to do; empty when nothing
};

// "ok    agent-sandbox: ...", "FAIL  rbac: ... fix: ...", "warn  gc: ...".
std::string format_check(const DoctorCheck& check);

// 1 when any check failed, else 0 (warnings do not fail).
int doctor_exit_code(const std::vector<DoctorCheck>& checks);

// `kubectl api-versions`' output: agent-sandbox's two API groups at v1beta1.
DoctorCheck agent_sandbox_check(const std::string& api_versions);

// `kubectl get namespace NS -o json`: nullopt with `reason` when it could not
// be read (missing: fail; forbidden: warn, cannot tell).
DoctorCheck namespace_check(const std::string& ns, const std::optional<nlohmann::json>& object,
                            bool forbidden);

// The namespace's Pod Security labels (enforce level), from the same object.
DoctorCheck pod_security_check(const std::string& ns, const std::optional<nlohmann::json>& object);

// The permissions `kubectl auth can-i` denied ("create pods/exec", ...) of
// `asked`; `error`, the first answer that was neither yes nor no.
DoctorCheck rbac_check(const std::string& ns, const std::vector<std::string>& denied,
                       std::size_t asked, const std::string& error);

// `kubectl get cronjobs -o json` in the namespace: one running
// `sandbox-kubernetes gc`. nullopt when the list could not be read.
DoctorCheck gc_check(const std::string& ns, const std::optional<nlohmann::json>& cronjobs);

// The name of the CronJob that runs `sandbox-kubernetes gc`, empty when none.
std::string gc_cronjob_name(const std::optional<nlohmann::json>& cronjobs);

// `check` (gc_check's, for CronJob `cronjob`) with its last run: the newest of
// `jobs` (`kubectl get jobs -o json`) the CronJob owns, and `pods` (the Jobs'
// pods, labelled job-name). A CronJob that exists but whose runs fail (an
// image the cluster cannot pull, a gc that exits non-zero) cleans nothing up:
// that is a FAIL. nullopt: could not be read (a warn, the CronJob named).
DoctorCheck gc_last_run_check(DoctorCheck check, const std::string& cronjob,
                              const std::optional<nlohmann::json>& jobs,
                              const std::optional<nlohmann::json>& pods);

// `kubectl get networkpolicies -o json` in the namespace: one whose pod
// selector takes in every sandbox pod (label osf.sandbox.role=sandbox) and
// that denies their egress unless another policy allows it (policyTypes
// Egress, no egress rule), as the chart's default-deny does. Without one, a
// sandbox whose own policy is missing (agent-sandbox's controller makes it
// late, or not at all) reaches everything. nullopt when the list could not be
// read.
DoctorCheck default_deny_check(const std::string& ns,
                               const std::optional<nlohmann::json>& policies);

// OSF_UPSTREAM_CA_BUNDLE: `problem` empty when `pem` was read and is a bundle.
DoctorCheck upstream_ca_check(const std::string& path, const std::string& pem,
                              const std::string& problem);

// NetworkPolicy enforcement cannot be seen from the API: how to check it.
DoctorCheck network_policy_note();

} // namespace osf::kubernetes::manifests
