#include "kubernetes/kubectl/cluster_flags.hpp"
#include "kubernetes/kubectl/version_checking_runner.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

using namespace osf::kubernetes::kubectl;
using osf::testing::FakeKubectl;

using osf::testing::printed;

TEST_CASE("--kubeconfig and --context go first on every call of a pipeline") {
    FakeKubectl fake;
    ClusterFlags flags;
    ClusterFlagsRunner runner(fake, flags);
    KubectlCall get;
    get.args = {"get", "pods"};
    runner.run(get);
    CHECK(fake.calls.back().args == std::vector<std::string>{"get", "pods"});
    flags.kubeconfig = "/tmp/kc";
    flags.context = "staging";
    KubectlCall exec;
    exec.args = {"exec", "p", "--", "sh", "--context=x"};
    runner.run_pipeline({get, exec});
    CHECK(fake.calls[1].args ==
          std::vector<std::string>{"--kubeconfig=/tmp/kc", "--context=staging", "get", "pods"});
    CHECK(fake.calls[2].args == std::vector<std::string>{"--kubeconfig=/tmp/kc",
                                                         "--context=staging", "exec", "p", "--",
                                                         "sh", "--context=x"});
}

TEST_CASE("the namespace: -n, else the variable, else the context's (asked once), else none") {
    ClusterFlags flags;
    std::map<std::string, std::string> env = {{"OTHER", "x"}};
    int asked = 0;
    std::optional<std::string> context_ns = "team-a";
    const auto getenv = namespaced_getenv(
        flags,
        [&env](const std::string& name) -> std::optional<std::string> {
            const auto it = env.find(name);
            return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
        },
        [&] {
            ++asked;
            return context_ns;
        });
    CHECK(getenv("OTHER") == "x");
    CHECK(asked == 0);
    CHECK(getenv("OSF_SANDBOX_NAMESPACE") == "team-a");
    CHECK(getenv("OSF_SANDBOX_NAMESPACE") == "team-a");
    CHECK(asked == 1);
    env["OSF_SANDBOX_NAMESPACE"] = "from-env";
    CHECK(getenv("OSF_SANDBOX_NAMESPACE") == "from-env");
    flags.ns = "from-flag";
    CHECK(getenv("OSF_SANDBOX_NAMESPACE") == "from-flag");

    FakeKubectl fake;
    fake.on({"config", "view"}, printed("team-b"));
    CHECK(context_namespace(fake) == "team-b");
    CHECK(fake.calls.back().args ==
          std::vector<std::string>{"config", "view", "--minify", "-o",
                                   "jsonpath={.contexts[0].context.namespace}"});
    FakeKubectl none;
    none.on({"config", "view"}, printed(""));
    CHECK(context_namespace(none) == std::nullopt);
}
