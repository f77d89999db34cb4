// cpus_within_quota: a container's CPU limit (cgroup v2 cpu.max) caps the
// worker threads that `--threads 0` starts.
#include "config/cpu_budget.hpp"

#include <catch2/catch.hpp>

using osf::cpus_within_quota;

TEST_CASE("a cgroup CPU quota caps the CPUs, rounded up") {
    CHECK(cpus_within_quota("200000 100000\n", 32) == 2);
    CHECK(cpus_within_quota("150000 100000", 32) == 2); // 1.5 CPUs: two threads
    CHECK(cpus_within_quota("50000 100000", 32) == 1);  // 50m-style limits: one
    CHECK(cpus_within_quota("800000 100000", 4) == 4);  // never above the CPUs there are
}

TEST_CASE("no quota, or text that is not one, leaves the CPUs as they are") {
    CHECK(cpus_within_quota("max 100000\n", 8) == 8);
    CHECK(cpus_within_quota("", 8) == 8);
    CHECK(cpus_within_quota("200000", 8) == 8);
    CHECK(cpus_within_quota("200000 0", 8) == 8);
    CHECK(cpus_within_quota("-1 100000", 8) == 8);
    CHECK(cpus_within_quota("2e5 100000", 8) == 8);
}

TEST_CASE("the CPUs this process may use are at least one") {
    CHECK(osf::usable_cpus() >= 1);
}
