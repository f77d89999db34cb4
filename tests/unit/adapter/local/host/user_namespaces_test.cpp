#include "commands/command_errors.hpp"
#include "local/host/user_namespaces.hpp"
#include "local/launch/bwrap_command.hpp"
#include "local/launch/template_choice.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <sys/wait.h>

using namespace osf::local;

TEST_CASE("user namespaces: root always; a clear reason where users cannot") {
    CHECK_FALSE(user_namespace_problem(true, {"1", "15000"}));
    CHECK(user_namespace_problem(true, {"0", "15000"})->find("host id of their own") !=
          std::string::npos);
    CHECK_FALSE(user_namespace_problem(false, {std::nullopt, "15000"}));
    CHECK_FALSE(user_namespace_problem(false, {"1\n", "15000"}));
    CHECK(user_namespace_problem(false, {"0\n", "15000"})->find("unprivileged_userns_clone=0") !=
          std::string::npos);
    CHECK(user_namespace_problem(false, {std::nullopt, "0"})->find("max_user_namespaces=0") !=
          std::string::npos);
    // bwrap 0.8's own words where the kernel refuses, and an AppArmor refusal.
    CHECK(describe_bwrap_failure("bwrap: No permissions to creating new namespace, likely because "
                                 "the kernel does not allow non-privileged user namespaces.")
              .starts_with("bwrap cannot create the sandbox's namespaces"));
    CHECK(describe_bwrap_failure("bwrap: setting up uid map: Permission denied")
              .starts_with("bwrap cannot create the sandbox's namespaces"));
    CHECK(describe_bwrap_failure("bwrap: Can't find source path /x: No such file or directory") ==
          "bwrap failed: bwrap: Can't find source path /x: No such file or directory");
}
