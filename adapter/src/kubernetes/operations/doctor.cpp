#include "kubernetes/operations/doctor.hpp"

#include "commands/command_errors.hpp"
#include "kubernetes/kubectl/kubectl.hpp"
#include "kubernetes/kubectl/kubectl_error.hpp"
#include "kubernetes/kubectl/kubectl_version.hpp"
#include "kubernetes/manifests/doctor_checks.hpp"
#include "kubernetes/manifests/required_permissions.hpp"
#include "kubernetes/upstream_ca_bundle.hpp"
#include "sandbox/settings.hpp"

#include <ostream>

namespace osf::kubernetes {

using manifests::DoctorCheck;
using Verdict = DoctorCheck::Verdict;

namespace {

kubectl::KubectlResult run(OperationContext& context, const std::vector<std::string>& args) {
    kubectl::KubectlCall call;
    call.args = args;
    return context.runner.run(call);
}

std::optional<nlohmann::json> parsed(const kubectl::KubectlResult& result) {
    if (!result.ok()) return std::nullopt;
    auto value = nlohmann::json::parse(result.out, nullptr, false);
    if (value.is_discarded()) return std::nullopt;
    return value;
}

DoctorCheck kubectl_check(OperationContext& context) {
    try {
        const std::vector<std::string> args = {"version", "--client", "-o", "json"};
        const auto result = run(context, args);
        const auto version = kubectl::parse_client_version(result.out);
        if (!result.ok() || !version)
            return {Verdict::fail, "kubectl",
                    "cannot read its version: " + kubectl::condensed_message(result.err),
                    "install kubectl 1.30 or newer"};
        if (!kubectl::is_supported(*version))
            return {Verdict::fail, "kubectl", kubectl::too_old_message(*version), ""};
        return {Verdict::ok, "kubectl", version->text, ""};
    } catch (const kubectl::KubectlError& e) {
        // The runner refuses an old or missing kubectl before any call.
        return {Verdict::fail, "kubectl", e.what(), "install kubectl 1.30 or newer"};
    }
}

} // namespace

int run_doctor(OperationContext& context) {
    const auto settings = sandbox::read_settings(context.getenv);
    const std::string& ns = settings.ns;
    std::vector<DoctorCheck> checks;
    auto report = [&](DoctorCheck check) {
        context.out << manifests::format_check(check) << "\n" << std::flush;
        checks.push_back(std::move(check));
    };

    report(kubectl_check(context));
    if (checks.back().verdict == Verdict::fail) return 1;
    const std::vector<std::string> discovery_args = {"api-versions"};
    const auto groups = run(context, discovery_args);
    if (!groups.ok()) {
        report({Verdict::fail, "cluster",
                "cannot reach the API server: " + kubectl::condensed_message(groups.err),
                "check KUBECONFIG, --kubeconfig and --context (kubectl config current-context)"});
        return 1;
    }
    report({Verdict::ok, "cluster", "the API server answers", ""});
    report(manifests::agent_sandbox_check(groups.out));

    const std::vector<std::string> namespace_args = {"get", "namespace", ns, "-o", "json"};
    const auto ns_result = run(context, namespace_args);
    const auto ns_object = parsed(ns_result);
    report(manifests::namespace_check(
        ns, ns_object, !ns_object && ns_result.err.find("NotFound") == std::string::npos));
    report(manifests::pod_security_check(ns, ns_object));

    std::vector<std::string> denied;
    std::string error;
    std::size_t asked = 0;
    for (const auto& permission : manifests::required_permissions())
        for (const auto& verb : permission.verbs) {
            auto args = manifests::can_i_args(permission, verb);
            args.insert(args.begin(), "auth");
            args.insert(args.end(), {"--namespace", ns});
            const auto answer = run(context, args);
            ++asked;
            // can-i prints yes (exit 0) or no (exit 1); an error says why on stderr.
            if (answer.ok()) continue;
            if (answer.out.rfind("no", 0) == 0)
                denied.push_back(verb + " " + permission.resource +
                                 (permission.group.empty() ? "" : " (" + permission.group + ")"));
            else if (error.empty())
                error = kubectl::condensed_message(answer.err);
        }
    report(manifests::rbac_check(ns, denied, asked, error));
    const std::vector<std::string> cronjob_args = {"get", "cronjobs", "--namespace",
                                                   ns,    "-o",       "json"};
    const auto cronjobs = parsed(run(context, cronjob_args));
    auto gc = manifests::gc_check(ns, cronjobs);
    if (const std::string cronjob = manifests::gc_cronjob_name(cronjobs); !cronjob.empty()) {
        // A CronJob that exists is not one that works: its last run says.
        const std::vector<std::string> job_args = {"get", "jobs", "--namespace", ns, "-o", "json"};
        const std::vector<std::string> job_pod_args = {"get", "pods",     "--namespace", ns,
                                                       "-l",  "job-name", "-o",          "json"};
        const auto jobs = parsed(run(context, job_args));
        gc = manifests::gc_last_run_check(gc, cronjob, jobs,
                                          jobs ? parsed(run(context, job_pod_args)) : std::nullopt);
    }
    report(gc);
    const std::vector<std::string> policy_args = {"get", "networkpolicies", "--namespace", ns, "-o",
                                                  "json"};
    report(manifests::default_deny_check(ns, parsed(run(context, policy_args))));
    report(manifests::network_policy_note());
    if (settings.upstream_ca_bundle) {
        std::string pem, problem;
        try {
            pem = read_upstream_ca_bundle(settings.upstream_ca_bundle);
        } catch (const commands::UsageError& e) {
            problem = e.what();
        }
        report(manifests::upstream_ca_check(*settings.upstream_ca_bundle, pem, problem));
    }
    return manifests::doctor_exit_code(checks);
}

} // namespace osf::kubernetes
