#include "kubernetes/manifests/doctor_checks.hpp"
#include "kubernetes/manifests/required_permissions.hpp"
#include "kubernetes/manifests/snapshot_objects.hpp"
#include "sandbox/settings.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using nlohmann::json;
using namespace osf::kubernetes::manifests;
using namespace osf::sandbox;

TEST_CASE("doctor: each check's verdict and fix") {
    using namespace osf::kubernetes::manifests;
    using namespace osf::sandbox;
    using Verdict = DoctorCheck::Verdict;
    CHECK(agent_sandbox_check("v1\nagents.x-k8s.io/v1beta1\nextensions.agents.x-k8s.io/v1beta1\n")
              .verdict == Verdict::ok);
    const auto missing = agent_sandbox_check("v1\nagents.x-k8s.io/v1alpha1\n");
    CHECK(missing.verdict == Verdict::fail);
    CHECK(missing.detail ==
          "agents.x-k8s.io/v1beta1, extensions.agents.x-k8s.io/v1beta1 not served");
    CHECK(namespace_check("a", std::nullopt, false).verdict == Verdict::fail);
    CHECK(namespace_check("a", std::nullopt, true).verdict == Verdict::warn);
    const json labelled = {
        {"metadata", {{"labels", {{"pod-security.kubernetes.io/enforce", "baseline"}}}}}};
    CHECK(pod_security_check("a", labelled).verdict == Verdict::ok);
    CHECK(pod_security_check("a", json::object()).verdict == Verdict::warn);
    CHECK(rbac_check("a", {}, 53, "").detail ==
          "all 53 permissions the commands use are granted in a");
    CHECK(rbac_check("a", {"create pods/exec"}, 53, "").verdict == Verdict::fail);
    CHECK(rbac_check("a", {}, 53, "Unauthorized").verdict == Verdict::fail);
    const json cronjobs = {
        {"items",
         json::array(
             {json{{"metadata", {{"name", "x-gc"}}},
                   {"spec",
                    {{"jobTemplate",
                      {{"spec",
                        {{"template",
                          {{"spec",
                            {{"containers",
                              json::array({json{{"command", json::array({"sandbox-kubernetes",
                                                                         "gc"})}}})}}}}}}}}}}}}})}};
    CHECK(gc_check("a", cronjobs).detail == "CronJob x-gc runs sandbox-kubernetes gc");
    CHECK(gc_check("a", json{{"items", json::array()}}).verdict == Verdict::warn);
    CHECK(gc_cronjob_name(cronjobs) == "x-gc");
    CHECK(gc_cronjob_name(json{{"items", json::array()}}).empty());
    CHECK(gc_cronjob_name(std::nullopt).empty());
}

TEST_CASE("doctor: the gc CronJob's last run") {
    using Verdict = DoctorCheck::Verdict;
    const DoctorCheck base{Verdict::ok, "gc", "CronJob x-gc runs sandbox-kubernetes gc", ""};
    auto job = [](const std::string& name, const std::string& created, const std::string& owner,
                  const json& status) {
        return json{
            {"metadata",
             {{"name", name},
              {"creationTimestamp", created},
              {"ownerReferences", json::array({json{{"kind", "CronJob"}, {"name", owner}}})}}},
            {"status", status}};
    };
    // A List of `items` (built one by one: brace lists of JSON objects are ambiguous).
    auto list = [](const std::vector<json>& items) {
        json out = {{"items", json::array()}};
        for (const auto& item : items)
            out["items"].push_back(item);
        return out;
    };
    const json failed = {{"conditions", json::array({json{{"type", "Failed"},
                                                          {"status", "True"},
                                                          {"reason", "BackoffLimitExceeded"},
                                                          {"message", "backoff limit"}}})}};
    const json complete = {
        {"conditions", json::array({json{{"type", "Complete"}, {"status", "True"}}})}};
    const json pulling = {
        {"items",
         json::array({json{
             {"metadata", {{"name", "x-gc-2-abc"}, {"labels", {{"job-name", "x-gc-2"}}}}},
             {"status",
              {{"phase", "Pending"},
               {"containerStatuses", json::array({json{{"name", "gc"},
                                                       {"state",
                                                        {{"waiting",
                                                          {{"reason", "ErrImagePull"},
                                                           {"message", "not found"}}}}}}})}}}}})}};
    struct Case {
        json jobs;
        std::optional<json> pods;
        Verdict verdict;
        std::string detail;
    };
    const std::vector<Case> cases = {
        {json{{"items", json::array()}}, std::nullopt, Verdict::ok,
         "CronJob x-gc runs sandbox-kubernetes gc; it has not run yet"},
        // Another CronJob's Job is not this one's run.
        {list({job("y-1", "2026-12-01T00:00:00Z", "y", failed)}), json::object(), Verdict::ok,
         "CronJob x-gc runs sandbox-kubernetes gc; it has not run yet"},
        // The newest decides: an old failure, then a success.
        {list({job("x-gc-2", "2026-12-01T00:15:00Z", "x-gc", complete),
               job("x-gc-1", "2026-12-01T00:00:00Z", "x-gc", failed)}),
         json::object(), Verdict::ok,
         "CronJob x-gc runs sandbox-kubernetes gc; its last run, Job x-gc-2, succeeded"},
        {list({job("x-gc-1", "2026-12-01T00:00:00Z", "x-gc", failed)}), json::object(),
         Verdict::fail,
         "CronJob x-gc runs sandbox-kubernetes gc; its last run, Job x-gc-1, failed: "
         "BackoffLimitExceeded: backoff limit"},
        {list({job("x-gc-2", "2026-12-01T00:15:00Z", "x-gc", json::object())}), pulling,
         Verdict::fail,
         "CronJob x-gc runs sandbox-kubernetes gc; its last run, Job x-gc-2, cannot start: pod "
         "x-gc-2-abc, container gc: ErrImagePull: not found"},
        {list({job("x-gc-2", "2026-12-01T00:15:00Z", "x-gc", json::object())}), json::object(),
         Verdict::ok,
         "CronJob x-gc runs sandbox-kubernetes gc; its last run, Job x-gc-2, is running"},
    };
    for (const auto& c : cases) {
        INFO(c.detail);
        const auto check = gc_last_run_check(base, "x-gc", c.jobs, c.pods);
        CHECK(check.verdict == c.verdict);
        CHECK(check.detail == c.detail);
        CHECK(check.fix.empty() == (c.verdict == Verdict::ok));
    }
    const auto unreadable = gc_last_run_check(base, "x-gc", std::nullopt, std::nullopt);
    CHECK(unreadable.verdict == Verdict::warn);
    CHECK(unreadable.detail == "CronJob x-gc runs sandbox-kubernetes gc; cannot tell how its last "
                               "run went (jobs cannot be listed)");
    CHECK(format_check({Verdict::fail, "rbac", "denied", "grant it"}) ==
          "FAIL  rbac: denied; fix: grant it");
    CHECK(format_check({Verdict::ok, "kubectl", "v1.32.3", ""}) == "ok    kubectl: v1.32.3");
    CHECK(doctor_exit_code({{Verdict::ok, "a", "", ""}, {Verdict::warn, "b", "", ""}}) == 0);
    CHECK(doctor_exit_code({{Verdict::warn, "a", "", ""}, {Verdict::fail, "b", "", ""}}) == 1);
    // kubectl auth can-i's words for a permission
    CHECK(can_i_args({"", "pods/exec", {"create"}}, "create") ==
          std::vector<std::string>{"can-i", "create", "pods", "--subresource=exec"});
    CHECK(can_i_args({"extensions.agents.x-k8s.io", "sandboxclaims", {"get"}}, "get") ==
          std::vector<std::string>{"can-i", "get", "sandboxclaims.extensions.agents.x-k8s.io"});
}

TEST_CASE("doctor: a default-deny NetworkPolicy that takes in every sandbox pod") {
    using Verdict = DoctorCheck::Verdict;
    auto policy = [](const json& selector, const json& types, const json& egress = nullptr) {
        json spec = {{"podSelector", selector}, {"policyTypes", types}};
        if (!egress.is_null()) spec["egress"] = egress;
        return json{{"metadata", {{"name", "p"}}}, {"spec", spec}};
    };
    auto verdict = [](const json& item) {
        return default_deny_check("ns", json{{"items", json::array({item})}}).verdict;
    };
    const json both = json::array({"Ingress", "Egress"});
    const json chart = {
        {"matchExpressions",
         json::array({json{{"key", "osf.sandbox.role"},
                           {"operator", "In"},
                           {"values", json::array({"sandbox", "snapshot-copy"})}}})}};
    CHECK(verdict(policy(chart, both)) == Verdict::ok);
    CHECK(verdict(policy(json::object(), json::array({"Egress"}))) == Verdict::ok); // every pod
    CHECK(verdict(policy({{"matchLabels", {{"osf.sandbox.role", "sandbox"}}}}, both)) ==
          Verdict::ok);
    // Not a default deny: ingress only, an egress rule, one sandbox, another role.
    CHECK(verdict(policy(chart, json::array({"Ingress"}))) == Verdict::warn);
    CHECK(verdict(policy(chart, both, json::array({json::object()}))) == Verdict::warn);
    CHECK(verdict(policy({{"matchLabels", {{"osf.sandbox.id", "0123456789ab"}}}}, both)) ==
          Verdict::warn);
    CHECK(verdict(policy({{"matchLabels", {{"osf.sandbox.role", "egress"}}}}, both)) ==
          Verdict::warn);
    const auto none = default_deny_check("ns", json{{"items", json::array()}});
    CHECK(none.verdict == Verdict::warn);
    CHECK(none.fix.find("networkPolicy.create=true") != std::string::npos);
    CHECK(default_deny_check("ns", std::nullopt).verdict == Verdict::warn);
}

TEST_CASE("doctor: the upstream CA bundle") {
    using Verdict = DoctorCheck::Verdict;
    const std::string cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    const auto two = upstream_ca_check("/etc/ca.pem", cert + cert, "");
    CHECK(two.verdict == Verdict::ok);
    CHECK(two.detail.find("/etc/ca.pem: 2 certificates") == 0);
    const auto bad = upstream_ca_check("/etc/ca.pem", "", "OSF_UPSTREAM_CA_BUNDLE: cannot read");
    CHECK(bad.verdict == Verdict::fail);
    CHECK(bad.detail == "OSF_UPSTREAM_CA_BUNDLE: cannot read");
}
