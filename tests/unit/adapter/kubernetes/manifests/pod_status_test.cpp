#include "kubernetes/manifests/pod_status.hpp"
#include "kubernetes/manifests/snapshot_objects.hpp"
#include "sandbox/settings.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using nlohmann::json;
using namespace osf::kubernetes::manifests;
using namespace osf::sandbox;

namespace {

json pod_with(const json& status) {
    return {{"metadata", {{"name", "p"}}}, {"status", status}};
}

} // namespace

TEST_CASE("pod status: creating is progress, not failure") {
    const json pod = pod_with(
        {{"phase", "Pending"},
         {"containerStatuses",
          json::array({json{{"name", "sandbox"},
                            {"state", {{"waiting", {{"reason", "ContainerCreating"}}}}}}})}});
    CHECK_FALSE(pod_start_failure(pod));
    CHECK_FALSE(pod_ready(pod));
    CHECK(pod_progress(pod) == "Pending (ContainerCreating)");
    CHECK_FALSE(pod_start_failure(pod_with({{"phase", "Pending"}})));
}

TEST_CASE("pod status: ErrImagePull names container, reason, message") {
    const json pod = pod_with(
        {{"phase", "Pending"},
         {"containerStatuses",
          json::array(
              {json{{"name", "sandbox"},
                    {"state",
                     {{"waiting",
                       {{"reason", "ErrImagePull"}, {"message", "pull access denied"}}}}}}})}});
    const auto failure = pod_start_failure(pod);
    REQUIRE(failure);
    CHECK(failure->container == "sandbox");
    CHECK(failure->reason == "ErrImagePull");
    CHECK(failure->message == "pull access denied");
}

TEST_CASE("pod status: an exited container fails; a completed init container does not") {
    const json exited = pod_with(
        {{"phase", "Failed"},
         {"containerStatuses",
          json::array({json{
              {"name", "egress-proxy"},
              {"state",
               {{"terminated", {{"reason", "Error"}, {"exitCode", 2}, {"message", "bad"}}}}}}})}});
    const auto failure = pod_start_failure(exited);
    REQUIRE(failure);
    CHECK(failure->container == "egress-proxy");
    CHECK(failure->reason == "Error");
    CHECK(failure->message == "exited with code 2: bad");

    const json init_done = pod_with(
        {{"phase", "Pending"},
         {"initContainerStatuses",
          json::array(
              {json{{"name", "restore"},
                    {"state", {{"terminated", {{"reason", "Completed"}, {"exitCode", 0}}}}}}})}});
    CHECK_FALSE(pod_start_failure(init_done));
    const json crash = pod_with(
        {{"phase", "Running"},
         {"containerStatuses",
          json::array({json{{"name", "sandbox"},
                            {"state", {{"waiting", {{"reason", "CrashLoopBackOff"}}}}}}})}});
    CHECK(pod_start_failure(crash)->reason == "CrashLoopBackOff");
}

TEST_CASE("pod status: ready needs Running and the Ready condition") {
    json pod =
        pod_with({{"phase", "Running"},
                  {"conditions", json::array({json{{"type", "Ready"}, {"status", "False"}}})}});
    CHECK_FALSE(pod_ready(pod));
    CHECK(pod_progress(pod) == "Running (not ready)");
    pod["status"]["conditions"][0]["status"] = "True";
    CHECK(pod_ready(pod));
}

TEST_CASE("claim status: Ready condition and sandbox name") {
    const json claim = {{"status",
                         {{"sandbox", {{"name", "osf-sandbox-0123456789ab"}}},
                          {"conditions", json::array({json{{"type", "Ready"},
                                                           {"status", "False"},
                                                           {"reason", "SandboxNotReady"},
                                                           {"message", "m"}}})}}}};
    const auto status = claim_status(claim);
    CHECK_FALSE(status.ready);
    CHECK(status.sandbox_name == "osf-sandbox-0123456789ab");
    CHECK(status.reason == "SandboxNotReady");
    CHECK(status.message == "m");
    CHECK_FALSE(claim_status(json::object()).ready);
}

TEST_CASE("a claim that does not bind is named with the newest Warning about it") {
    const json pvc = {{"metadata", {{"name", "workspace-x"}}}, {"status", {{"phase", "Pending"}}}};
    auto event = [](const std::string& type, const std::string& reason, const std::string& when) {
        return json{{"type", type},
                    {"reason", reason},
                    {"message", reason + " at " + when},
                    {"lastTimestamp", when}};
    };
    const json events = {
        {"items", json::array({event("Warning", "ProvisioningFailed", "2026-12-04T10:00:00Z"),
                               event("Warning", "ProvisioningFailed", "2026-12-04T10:00:09Z"),
                               event("Normal", "WaitForFirstConsumer", "2026-12-04T10:00:10Z")})}};
    CHECK(claim_binding_problem(pvc, events) ==
          "PersistentVolumeClaim workspace-x is Pending: ProvisioningFailed: ProvisioningFailed at "
          "2026-12-04T10:00:09Z");
    // No Warning (or events that could not be read): the phase and where to look.
    CHECK(claim_binding_problem(pvc, json::object()) ==
          "PersistentVolumeClaim workspace-x is Pending (kubectl describe pvc workspace-x shows "
          "its events)");
    CHECK(claim_binding_problem(pvc, json::value_t::discarded) ==
          "PersistentVolumeClaim workspace-x is Pending (kubectl describe pvc workspace-x shows "
          "its events)");
    CHECK_FALSE(claim_binding_problem({{"status", {{"phase", "Bound"}}}}, events));
    // No Warning, but the volume controller's Normal FailedBinding: quoted, the newest.
    const json binding = {
        {"items", json::array({event("Normal", "FailedBinding", "2026-12-04T10:00:01Z"),
                               event("Normal", "FailedBinding", "2026-12-04T10:00:31Z"),
                               event("Normal", "ExternalProvisioning", "2026-12-04T10:00:40Z")})}};
    CHECK(claim_binding_problem(pvc, binding) ==
          "PersistentVolumeClaim workspace-x is Pending: FailedBinding: FailedBinding at "
          "2026-12-04T10:00:31Z");
    // A Warning still comes first.
    json both = binding;
    both["items"].push_back(event("Warning", "ProvisioningFailed", "2026-12-04T10:00:00Z"));
    CHECK(claim_binding_problem(pvc, both) ==
          "PersistentVolumeClaim workspace-x is Pending: ProvisioningFailed: ProvisioningFailed at "
          "2026-12-04T10:00:00Z");
}

TEST_CASE("pod status: unschedulable, and a scale-up the autoscaler triggered for it") {
    auto scheduled = [](const std::string& status, const std::string& reason) {
        return json{{"status",
                     {{"conditions",
                       json::array({json{
                           {"type", "PodScheduled"}, {"status", status}, {"reason", reason}}})}}}};
    };
    CHECK(pod_unschedulable(scheduled("False", "Unschedulable")));
    CHECK_FALSE(pod_unschedulable(scheduled("True", "")));
    CHECK_FALSE(pod_unschedulable(scheduled("False", "SchedulingGated")));
    CHECK_FALSE(pod_unschedulable(json::object()));
    CHECK_FALSE(pod_unschedulable(json::value_t::discarded));
    const json events = {{"items", json::array({json{{"reason", "FailedScheduling"}},
                                                json{{"reason", "TriggeredScaleUp"}}})}};
    CHECK(scale_up_triggered(events));
    CHECK_FALSE(
        scale_up_triggered({{"items", json::array({json{{"reason", "FailedScheduling"}}})}}));
    CHECK_FALSE(scale_up_triggered(json::object()));
    CHECK_FALSE(scale_up_triggered(json::value_t::discarded));
}
