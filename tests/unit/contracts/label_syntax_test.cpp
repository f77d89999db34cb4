#include "osf/label_syntax.hpp"

#include <catch2/catch.hpp>

using osf::user_label_problem;

TEST_CASE("a sandbox's labels: Kubernetes syntax, never the adapters' keys") {
    CHECK_FALSE(user_label_problem("run", "r-42"));
    CHECK_FALSE(user_label_problem("example.com/deployment", "prod_1.2"));
    CHECK_FALSE(user_label_problem("empty", ""));
    CHECK_FALSE(user_label_problem("app.kubernetes.io/name", "agent"));
    for (const char* key : {"-run", "run-", "Bad Key", "Example.com/x", "/x", "a/b/c", ""}) {
        INFO(key);
        REQUIRE(user_label_problem(key, "v"));
        CHECK(user_label_problem(key, "v")->find("is not a label key") != std::string::npos);
    }
    CHECK(user_label_problem(std::string(64, 'a'), "v"));
    CHECK_FALSE(user_label_problem(std::string(63, 'a'), "v"));
    for (const char* value : {"-a", "a b", "a/b"}) {
        INFO(value);
        CHECK(user_label_problem("run", value)->find("is not a label value") != std::string::npos);
    }
    for (const char* key :
         {"osf.sandbox.id", "osf.team", "app.kubernetes.io/managed-by",
          "app.kubernetes.io/component", "agents.x-k8s.io/name", "sandbox.agents.x-k8s.io/x"}) {
        INFO(key);
        CHECK(user_label_problem(key, "x") ==
              std::string(key) + " is a label the sandbox adapters set themselves");
    }
}
