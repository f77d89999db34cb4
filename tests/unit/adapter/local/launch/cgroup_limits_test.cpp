#include "commands/command_errors.hpp"
#include "local/launch/cgroup_limits.hpp"
#include "sandbox/lifetime.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <sys/wait.h>
#include <utility>
#include <vector>

using namespace osf::local;
using namespace std::chrono_literals;

TEST_CASE("cgroup values from cpu and memory") {
    CHECK(cpu_millicores("2") == 2000);
    CHECK(cpu_millicores("0.5") == 500);
    CHECK(cpu_millicores("1.25") == 1250);
    CHECK(cpu_millicores("250m") == 250);
    CHECK(memory_bytes("4Gi") == 4LL << 30);
    CHECK(memory_bytes("512Mi") == 512LL << 20);
    CHECK(memory_bytes("1G") == 1000000000LL);
    CHECK(memory_bytes("1000") == 1000);
    auto spec = *osf::parse_spec(R"({"template":"host","cpu":"500m","memory":"1Gi"})").spec;
    CHECK(cgroup_values(spec) ==
          std::vector<std::pair<std::string, std::string>>{
              {"cpu.max", "50000 100000"}, {"memory.max", "1073741824"}, {"pids.max", "4096"}});
    auto bare = *osf::parse_spec(R"({"template":"host","cpu":0.001})").spec;
    CHECK(cgroup_values(bare).front() ==
          std::pair<std::string, std::string>{"cpu.max", "1000 100000"});
}

TEST_CASE("cgroup v2: the controllers the limits need that the parent does not pass on") {
    const std::vector<std::pair<std::string, std::string>> all = {
        {"cpu.max", "50000 100000"}, {"memory.max", "1024"}, {"pids.max", "4096"}};
    using List = std::vector<std::string>;
    CHECK(missing_controllers("cpu memory pids\n", all).empty());
    CHECK(missing_controllers("cpuset cpu io memory hugetlb pids rdma\n", all).empty());
    // This machine's hybrid layout: the unified hierarchy has only hugetlb.
    CHECK(missing_controllers("hugetlb\n", all) == List{"cpu", "memory", "pids"});
    CHECK(missing_controllers("", all) == List{"cpu", "memory", "pids"});
    CHECK(missing_controllers("memory pids", all) == List{"cpu"});
    // A spec without cpu and memory needs only pids.
    CHECK(missing_controllers("pids", {{"pids.max", "4096"}}).empty());
    // "cpuset" is not "cpu".
    CHECK(missing_controllers("cpuset memory pids", all) == List{"cpu"});
}

TEST_CASE("cgroup limits: a spec without cpu or memory gets half the host") {
    struct Row {
        std::optional<std::string> cpu, memory;
        HostSize host;
        std::optional<std::string> want_cpu, want_memory;
    };
    const Row rows[] = {
        {std::nullopt, std::nullopt, {24LL << 30, 8}, "4000m", std::to_string(12LL << 30)},
        {std::nullopt, std::nullopt, {1LL << 30, 1}, "1000m", std::to_string(512LL << 20)},
        {std::nullopt, std::nullopt, {1LL << 30, 3}, "1500m", std::to_string(512LL << 20)},
        {"2", "256Mi", {24LL << 30, 8}, "2", "256Mi"}, // what the spec says stands
        {"64", std::nullopt, {24LL << 30, 8}, "64", std::to_string(12LL << 30)},
        {std::nullopt, std::nullopt, {0, 0}, std::nullopt, std::nullopt}, // unknown host
    };
    for (const auto& row : rows) {
        osf::Spec spec;
        spec.cpu = row.cpu;
        spec.memory = row.memory;
        const auto limited = with_default_limits(spec, row.host);
        CHECK(limited.cpu == row.want_cpu);
        CHECK(limited.memory == row.want_memory);
    }
    osf::Spec none;
    const auto values = cgroup_values(with_default_limits(none, {2LL << 30, 2}));
    CHECK(values[0] == std::pair<std::string, std::string>{"cpu.max", "100000 100000"});
    CHECK(values[1] ==
          std::pair<std::string, std::string>{"memory.max", std::to_string(1LL << 30)});
}
