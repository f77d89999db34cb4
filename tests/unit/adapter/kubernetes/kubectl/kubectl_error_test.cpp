#include "kubernetes/kubectl/kubectl_error.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

using namespace osf::kubernetes::kubectl;

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
