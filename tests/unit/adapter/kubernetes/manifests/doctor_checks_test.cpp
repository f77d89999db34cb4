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
