#include "config/cpu_budget.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sched.h>
#include <string>
#include <thread>

namespace osf {

namespace {

bool read_number(std::string_view text, unsigned long long& value) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc{} && end == text.data() + text.size();
}

} // namespace

unsigned cpus_within_quota(std::string_view cpu_max, unsigned cpus) {
    while (!cpu_max.empty() && (cpu_max.back() == '\n' || cpu_max.back() == ' '))
        cpu_max.remove_suffix(1);
    const auto space = cpu_max.find(' ');
    if (space == std::string_view::npos) return cpus;
    unsigned long long quota = 0;
    unsigned long long period = 0;
    if (!read_number(cpu_max.substr(0, space), quota) ||
        !read_number(cpu_max.substr(space + 1), period) || period == 0)
        return cpus; // "max": no quota
    const unsigned long long within = std::max(1ULL, (quota + period - 1) / period);
    return static_cast<unsigned>(std::min<unsigned long long>(cpus, within));
}

unsigned usable_cpus() {
    unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) cpus = std::max(1, CPU_COUNT(&set));
    std::ifstream quota("/sys/fs/cgroup/cpu.max");
    std::string line;
    if (quota && std::getline(quota, line)) cpus = cpus_within_quota(line, cpus);
    return cpus;
}

} // namespace osf
