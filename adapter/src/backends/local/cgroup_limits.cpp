#include "backends/local/cgroup_limits.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <sys/stat.h>
#include <sys/statfs.h>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

namespace osf::backends::local {

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

CgroupPlace make_sandbox_cgroup(const std::string& id,
                                const std::vector<std::pair<std::string, std::string>>& values) {
    CgroupPlace place;
    struct statfs fs {};
    if (::statfs("/sys/fs/cgroup", &fs) != 0 ||
        static_cast<unsigned long>(fs.f_type) != CGROUP2_SUPER_MAGIC) {
        place.reason = "/sys/fs/cgroup is not cgroup v2";
        return place;
    }
    std::ifstream self("/proc/self/cgroup");
    std::string line, own;
    while (std::getline(self, line))
        if (line.starts_with("0::")) own = line.substr(3);
    const std::string parent = "/sys/fs/cgroup" + (own == "/" ? std::string() : own);
    std::ifstream control(parent + "/cgroup.subtree_control");
    const std::string enabled((std::istreambuf_iterator<char>(control)),
                              std::istreambuf_iterator<char>());
    if (const auto missing = missing_controllers(enabled, values); !missing.empty()) {
        std::string names;
        for (const auto& name : missing)
            names += (names.empty() ? "" : ", ") + name;
        std::string given = enabled;
        while (!given.empty() && given.back() == '\n')
            given.pop_back();
        place.reason = "cgroup v2 at " + parent + " does not give its children " + names +
                       " (cgroup.subtree_control: \"" + given + "\")";
        return place;
    }
    const std::string dir = parent + "/osf-sandbox-" + id;
    if (::mkdir(dir.c_str(), 0755) != 0) {
        place.reason = "cannot create " + dir + ": " + std::strerror(errno);
        return place;
    }
    place.directory = dir;
    return place;
}

std::optional<std::string>
apply_cgroup(const std::string& directory,
             const std::vector<std::pair<std::string, std::string>>& values, int pid) {
    for (const auto& [file, value] : values) {
        std::ofstream out(directory + "/" + file);
        out << value << "\n";
        out.flush();
        if (!out) return "cannot write " + directory + "/" + file;
    }
    std::ofstream procs(directory + "/cgroup.procs");
    procs << pid << "\n";
    procs.flush();
    if (!procs) return "cannot move the sandbox into " + directory;
    return std::nullopt;
}

} // namespace osf::backends::local
