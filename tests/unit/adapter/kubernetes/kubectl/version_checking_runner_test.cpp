#include "kubernetes/kubectl/kubectl_error.hpp"
#include "kubernetes/kubectl/kubectl_version.hpp"
#include "kubernetes/kubectl/version_checking_runner.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace osf::kubernetes::kubectl;
using osf::testing::FakeKubectl;

namespace {

// What Debian 12's kubernetes-client (kubectl 1.20) prints, trimmed.
const char* const kDebianKubectl = R"({
  "clientVersion": {"major": "1", "minor": "20", "gitVersion": "v1.20.2",
                    "gitCommit": "faecb196815e248d3ecfb03c680a4507229c2a56", "platform": "linux/amd64"}
})";

KubectlResult printed(const std::string& out) {
    KubectlResult result;
    result.out = out;
    return result;
}

} // namespace

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
