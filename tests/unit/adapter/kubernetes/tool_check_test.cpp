#include "kubernetes/tool_check.hpp"

#include <catch2/catch.hpp>

TEST_CASE("tool check: what each kubectl answer means") {
    using osf::kubernetes::tool_check_command;
    using osf::kubernetes::tool_problem;
    using osf::kubernetes::kubectl::KubectlResult;
    CHECK(tool_check_command({"git", "timeout"})[2].rfind("for tool in env tar cp git timeout; ",
                                                          0) == 0);
    CHECK_FALSE(tool_problem(KubectlResult{0, "", ""}));
    CHECK(tool_problem(KubectlResult{0, "tar\ncp\ngit\n", ""}) ==
          "the image has no tar (copy and snapshot), cp (a sandbox started from a snapshot of "
          "this one), git (OSF_SANDBOX_REQUIRED_TOOLS)");
    CHECK(tool_problem(KubectlResult{1, "", "command terminated with exit code 127\n"}) ==
          "the image has no sh (exec, copy, snapshot and a snapshot's restore run it)");
    CHECK(tool_problem(KubectlResult{1, "", "error: unable to upgrade connection\n"}) ==
          "could not check the image's tools: error: unable to upgrade connection");
}
