// `user`, `readOnlyRoot` and `storage`: what is accepted, what each mistake says.
#include "spec_test_support.hpp"

#include <catch2/catch.hpp>

using spec_test::errors_of;
using spec_test::spec_with;
using spec_test::valid_spec;

TEST_CASE("user, readOnlyRoot and storage are read into the Spec", "[spec][hardening]") {
    const auto spec = valid_spec(
        spec_with(R"("user": {"uid": 1000, "gid": 0}, "readOnlyRoot": true, "storage": "10Gi")"));
    REQUIRE(spec.user);
    CHECK(spec.user->uid == 1000);
    CHECK(spec.user->gid == 0);
    CHECK(spec.read_only_root);
    CHECK(spec.storage == "10Gi");

    const auto plain = valid_spec(spec_with(""));
    CHECK_FALSE(plain.user);
    CHECK_FALSE(plain.read_only_root);
    CHECK_FALSE(plain.storage);
    CHECK(valid_spec(spec_with(R"("user": {"uid": 2147483647, "gid": 2147483647})")).user->uid ==
          2147483647);
}

TEST_CASE("each hardening mistake is one error at its path", "[spec][hardening]") {
    struct Row {
        const char* members;
        const char* error;
    };
    const Row rows[] = {
        {R"("user": {"uid": 0, "gid": 0})",
         "$.user.uid: 0 is out of range: Kubernetes accepts 1 to 2147483647 (uid 0 is root: leave "
         "out \"user\" to run as root)"},
        {R"("user": {"uid": 1000})",
         "$.user: \"gid\" is missing: give both uid and gid, as {\"uid\": 1000, \"gid\": 1000}"},
        {R"("user": {"uid": 1000.5, "gid": 1})",
         "$.user.uid: must be a whole number, as 1000; got 1000.5"},
        {R"("user": {"uid": "1000", "gid": 1})",
         "$.user.uid: must be a whole number, as 1000; got a string"},
        {R"("user": {"uid": 1000, "gid": -1})",
         "$.user.gid: -1 is out of range: Kubernetes accepts 0 to 2147483647"},
        {R"("user": {"uid": 2147483648, "gid": 1})",
         "$.user.uid: 2147483648 is out of range: Kubernetes accepts 1 to 2147483647"},
        {R"("user": {"uid": 1, "gid": 1, "name": "me"})",
         "$.user.name: unknown field: user's fields are uid and gid"},
        {R"("user": 1000)",
         "$.user: must be an object, as {\"uid\": 1000, \"gid\": 1000}; got a number"},
        {R"("readOnlyRoot": "yes")", "$.readOnlyRoot: must be true or false; got a string"},
        {R"("storage": "10GB")",
         "$.storage: \"10GB\" is not a Kubernetes quantity: write \"10G\" (powers of 1000) or "
         "\"10Gi\" (powers of 1024)"},
        {R"("storage": "0")", "$.storage: \"0\" asks for no storage"},
        {R"("storage": "ten")", "$.storage: \"ten\" is not a storage quantity"},
        {R"("storage": 10)",
         "$.storage: must be a quantity string, as \"10Gi\" or \"500Mi\"; got a "
         "number (a bare number is ambiguous: write its unit)"},
        {R"("readonlyRoot": true)", "did you mean \"readOnlyRoot\"?"},
    };
    for (const auto& row : rows) {
        INFO(row.members);
        const auto errors = errors_of(spec_with(row.members));
        REQUIRE(errors.size() == 1);
        CHECK_THAT(errors[0], Catch::StartsWith(row.error) || Catch::Contains(row.error));
    }
}
