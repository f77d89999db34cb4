#include "local/launch/cgroup_limits.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace osf::local {

long long cpu_millicores(const std::string& cpu) {
    if (!cpu.empty() && cpu.back() == 'm') return std::stoll(cpu.substr(0, cpu.size() - 1));
    const auto dot = cpu.find('.');
    long long millis = std::stoll(cpu.substr(0, dot)) * 1000;
    if (dot != std::string::npos) {
        std::string fraction = cpu.substr(dot + 1);
        fraction.resize(3, '0');
        millis += std::stoll(fraction);
    }
    return millis;
}

long long memory_bytes(const std::string& memory) {
    static const std::pair<const char*, long long> suffixes[] = {
        {"Ki", 1LL << 10},      {"Mi", 1LL << 20},        {"Gi", 1LL << 30},
        {"Ti", 1LL << 40},      {"Pi", 1LL << 50},        {"k", 1000LL},
        {"K", 1000LL},          {"M", 1000000LL},         {"G", 1000000000LL},
        {"T", 1000000000000LL}, {"P", 1000000000000000LL}};
    for (const auto& [suffix, factor] : suffixes) {
        const std::string s = suffix;
        if (memory.size() > s.size() && memory.ends_with(s)) {
            const std::string number = memory.substr(0, memory.size() - s.size());
            if (number.find('.') != std::string::npos)
                return static_cast<long long>(std::stod(number) * static_cast<double>(factor));
            return std::stoll(number) * factor;
        }
    }
    return static_cast<long long>(std::stod(memory));
}

osf::Spec with_default_limits(osf::Spec spec, const HostSize& host) {
    if (!spec.cpu && host.cpus > 0)
        spec.cpu = std::to_string(std::max(1000LL, host.cpus * 1000 / 2)) + "m";
    if (!spec.memory && host.memory_bytes > 0) spec.memory = std::to_string(host.memory_bytes / 2);
    return spec;
}

std::vector<std::pair<std::string, std::string>> cgroup_values(const osf::Spec& spec) {
    std::vector<std::pair<std::string, std::string>> values;
    constexpr long long period = 100000; // microseconds, the kernel's default
    if (spec.cpu) {
        long long quota = cpu_millicores(*spec.cpu) * period / 1000;
        if (quota < 1000) quota = 1000; // the kernel's minimum quota
        values.emplace_back("cpu.max", std::to_string(quota) + " " + std::to_string(period));
    }
    if (spec.memory) values.emplace_back("memory.max", std::to_string(memory_bytes(*spec.memory)));
    values.emplace_back("pids.max", std::to_string(kSandboxPidsMax));
    return values;
}

std::vector<std::string>
missing_controllers(const std::string& subtree_control,
                    const std::vector<std::pair<std::string, std::string>>& values) {
    std::vector<std::string> enabled;
    std::istringstream words(subtree_control);
    for (std::string word; words >> word;)
        enabled.push_back(word);
    std::vector<std::string> missing;
    for (const auto& [file, value] : values) {
        const std::string controller = file.substr(0, file.find('.'));
        if (std::find(enabled.begin(), enabled.end(), controller) == enabled.end() &&
            std::find(missing.begin(), missing.end(), controller) == missing.end())
            missing.push_back(controller);
    }
    return missing;
}

std::vector<CgroupV1Value> cgroup_v1_values(const osf::Spec& spec) {
    std::vector<CgroupV1Value> values;
    constexpr long long period = 100000;
    if (spec.cpu) {
        long long quota = cpu_millicores(*spec.cpu) * period / 1000;
        if (quota < 1000) quota = 1000;
        values.push_back({"cpu", "cpu.cfs_period_us", std::to_string(period)});
        values.push_back({"cpu", "cpu.cfs_quota_us", std::to_string(quota)});
    }
    if (spec.memory) {
        const std::string bytes = std::to_string(memory_bytes(*spec.memory));
        values.push_back({"memory", "memory.limit_in_bytes", bytes});
        values.push_back({"memory", "memory.memsw.limit_in_bytes", bytes, true});
    }
    values.push_back({"pids", "pids.max", std::to_string(kSandboxPidsMax)});
    return values;
}

TmpfsSizes tmpfs_sizes(const osf::Spec& spec) {
    constexpr long long kDefaultTmp = 1LL << 30;
    constexpr long long kDefaultShm = 64LL << 20;
    TmpfsSizes sizes{kDefaultTmp, kDefaultShm};
    if (spec.memory) {
        const long long memory = memory_bytes(*spec.memory);
        sizes = {memory, std::min(memory, kDefaultShm)};
    }
    // The spec's tmpSize wins; its pages still count against the memory limit.
    if (spec.tmp_size) sizes.tmp = memory_bytes(*spec.tmp_size);
    return sizes;
}

} // namespace osf::local
