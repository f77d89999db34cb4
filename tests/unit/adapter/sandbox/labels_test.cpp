#include "sandbox/labels.hpp"
#include "sandbox/secret_plan.hpp"
#include "sandbox/settings.hpp"

#include <catch2/catch.hpp>

using namespace osf::sandbox;

TEST_CASE("OSF_SANDBOX_POD_LABELS: Kubernetes labels, never one the adapter sets") {
    CHECK_FALSE(pod_label_problem("team", "a"));
    CHECK_FALSE(pod_label_problem("example.com/cost-center", "42"));
    CHECK_FALSE(pod_label_problem("empty", ""));
    auto starts = [](const std::optional<std::string>& problem, const std::string& with) {
        return problem && problem->rfind(with, 0) == 0;
    };
    CHECK(starts(pod_label_problem("Bad Key", "x"), "'Bad Key' is not a label key"));
    CHECK(starts(pod_label_problem("Example.com/x", "y"), "'Example.com/x' is not a label key"));
    CHECK(starts(pod_label_problem("team", "-a"), "the value of team is not a label value"));
    CHECK(starts(pod_label_problem("team", std::string(64, 'a')),
                 "the value of team is not a label value"));
    for (const char* key : {"osf.sandbox.id", "osf.sandbox.role", "osf.sandbox.owned-by-claim",
                            "app.kubernetes.io/managed-by", "app.kubernetes.io/component",
                            "agents.x-k8s.io/sandbox-name-hash"}) {
        INFO(key);
        CHECK(pod_label_problem(key, "x") ==
              std::string(key) + " is a label the sandbox adapters set themselves");
    }
}

TEST_CASE("selectors: gc's parts that no claim owns, by label, for the API server to pick") {
    CHECK(managed_selector() == "app.kubernetes.io/managed-by=sandbox-kubernetes");
    CHECK(unowned_parts_selector() ==
          "app.kubernetes.io/managed-by=sandbox-kubernetes,osf.sandbox.id,"
          "!osf.sandbox.owned-by-claim");
}
