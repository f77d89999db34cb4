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
