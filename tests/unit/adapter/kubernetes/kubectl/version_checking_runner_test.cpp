#include "kubectl_outputs.hpp"
#include "kubernetes/kubectl/kubectl_error.hpp"
#include "kubernetes/kubectl/kubectl_version.hpp"
#include "kubernetes/kubectl/version_checking_runner.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace osf::kubernetes::kubectl;
using osf::testing::FakeKubectl;

using kubectl_outputs::kDebianKubectl;
using kubectl_outputs::kPinnedKubectl;
using osf::testing::printed;

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
