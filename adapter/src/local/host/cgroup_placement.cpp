#include "local/host/cgroup_placement.hpp"

#include "local/launch/cgroup_limits.hpp"
#include "osf/whole_file.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <thread>
#include <unistd.h>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

namespace osf::local {

namespace {

// An entry of /proc or of the cgroup tree; empty when it cannot be read.
std::string read_or_empty(const std::string& path) {
    return osf::read_whole_file(path).value_or("");
}

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream stream(text);
    while (std::getline(stream, part, separator))
        parts.push_back(part);
    return parts;
}

bool write_value(const std::string& path, const std::string& value) {
    std::ofstream out(path);
    out << value << "\n";
    out.flush();
    return static_cast<bool>(out);
}

std::vector<std::string> needed_controllers(const osf::Spec& spec) {
    std::vector<std::string> needed;
    if (spec.cpu) needed.push_back("cpu");
    if (spec.memory) needed.push_back("memory");
    needed.push_back("pids");
    return needed;
}

CgroupPlacement place_v2(const std::string& id, const osf::Spec& spec, bool create) {
    CgroupPlacement place;
    place.version = 2;
    std::string own;
    for (const auto& line : split(read_or_empty("/proc/self/cgroup"), '\n'))
        if (line.starts_with("0::")) own = line.substr(3);
    const std::string parent = "/sys/fs/cgroup" + (own == "/" ? std::string() : own);
    const auto values = cgroup_values(spec);
    const auto missing =
        missing_controllers(read_or_empty(parent + "/cgroup.subtree_control"), values);
    for (const auto& controller : needed_controllers(spec))
        if (std::find(missing.begin(), missing.end(), controller) == missing.end())
            place.controllers.push_back(controller);
    if (!missing.empty()) {
        std::string names;
        for (const auto& name : missing)
            names += (names.empty() ? "" : ", ") + name;
        place.reason = "cgroup v2 at " + parent + " does not give its children " + names;
    }
    if (::access(parent.c_str(), W_OK) != 0) {
        place.controllers.clear();
        place.reason = "cannot create a cgroup below " + parent + ": " + std::strerror(errno);
    }
    if (!create || place.controllers.empty()) return place;
    const std::string dir = parent + "/osf-sandbox-" + id;
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
        place.controllers.clear();
        place.reason = "cannot create " + dir + ": " + std::strerror(errno);
        return place;
    }
    place.directories.push_back(dir);
    for (const auto& [file, value] : values) {
        const std::string controller = file.substr(0, file.find('.'));
        if (std::find(place.controllers.begin(), place.controllers.end(), controller) ==
            place.controllers.end())
            continue;
        if (!write_value(dir + "/" + file, value)) {
            place.reason = "cannot write " + dir + "/" + file;
            std::erase(place.controllers, controller);
        }
    }
    place.procs_files.push_back(dir + "/cgroup.procs");
    return place;
}

// cgroup v1: each controller's hierarchy (its mount point) and the caller's
// place in it.
struct V1Hierarchy {
    std::string mount;
    std::string own;
};

std::map<std::string, V1Hierarchy> v1_hierarchies() {
    std::map<std::string, std::string> mounts; // controller -> mount point
    for (const auto& line : split(read_or_empty("/proc/self/mountinfo"), '\n')) {
        const auto dash = line.find(" - ");
        if (dash == std::string::npos) continue;
        const auto after = split(line.substr(dash + 3), ' ');
        if (after.size() < 3 || after[0] != "cgroup") continue;
        const auto before = split(line.substr(0, dash), ' ');
        if (before.size() < 5) continue;
        for (const auto& option : split(after[2], ','))
            mounts.emplace(option, before[4]);
    }
    std::map<std::string, V1Hierarchy> hierarchies;
    for (const auto& line : split(read_or_empty("/proc/self/cgroup"), '\n')) {
        const auto fields = split(line, ':');
        if (fields.size() < 3) continue;
        for (const auto& controller : split(fields[1], ',')) {
            const auto mount = mounts.find(controller);
            if (mount != mounts.end()) hierarchies[controller] = {mount->second, fields[2]};
        }
    }
    return hierarchies;
}

CgroupPlacement place_v1(const std::string& id, const osf::Spec& spec, bool create) {
    CgroupPlacement place;
    place.version = 1;
    const auto hierarchies = v1_hierarchies();
    if (hierarchies.empty()) {
        place.reason = "no cgroup hierarchy is mounted at /sys/fs/cgroup";
        return place;
    }
    std::map<std::string, std::string> dirs; // controller -> the sandbox's directory
    std::string unmounted;                   // the controllers the spec needs that v1 lacks
    for (const auto& controller : needed_controllers(spec)) {
        const auto found = hierarchies.find(controller);
        if (found == hierarchies.end()) {
            unmounted += (unmounted.empty() ? "" : ", ") + controller;
            continue;
        }
        const std::string parent =
            found->second.mount + (found->second.own == "/" ? std::string() : found->second.own);
        if (::access(parent.c_str(), W_OK) != 0) {
            if (place.reason.empty())
                place.reason =
                    "cannot create a cgroup below " + parent + ": " + std::strerror(errno);
            continue;
        }
        place.controllers.push_back(controller);
        dirs[controller] = parent + "/osf-sandbox-" + id;
    }
    if (!unmounted.empty() && place.reason.empty())
        place.reason = "cgroup v1 here mounts no " + unmounted + " controller";
    if (!create) return place;
    std::vector<std::string> made_for;
    for (const auto& [controller, dir] : dirs) {
        if (std::find(place.directories.begin(), place.directories.end(), dir) !=
            place.directories.end())
            continue; // cpu and cpuacct (or others) mounted together
        if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
            place.reason = "cannot create " + dir + ": " + std::strerror(errno);
            std::erase(place.controllers, controller);
            continue;
        }
        place.directories.push_back(dir);
        place.procs_files.push_back(dir + "/cgroup.procs");
    }
    for (const auto& value : cgroup_v1_values(spec)) {
        const auto dir = dirs.find(value.controller);
        if (dir == dirs.end()) continue;
        const std::string path = dir->second + "/" + value.file;
        if (value.optional && ::access(path.c_str(), F_OK) != 0) continue;
        if (!write_value(path, value.value)) {
            place.reason = "cannot write " + path;
            std::erase(place.controllers, value.controller);
        }
    }
    return place;
}

} // namespace

HostSize host_size() {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page_size = ::sysconf(_SC_PAGESIZE);
    const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    return {pages > 0 && page_size > 0 ? static_cast<long long>(pages) * page_size : 0,
            cpus > 0 ? cpus : 0};
}

CgroupPlacement place_sandbox_cgroups(const std::string& id, const osf::Spec& spec, bool create) {
    struct statfs root {};
    if (::statfs("/sys/fs/cgroup", &root) == 0 &&
        static_cast<unsigned long>(root.f_type) == CGROUP2_SUPER_MAGIC)
        return place_v2(id, spec, create);
    CgroupPlacement place = place_v1(id, spec, create);
    if (place.controllers.empty() && place.reason.empty())
        place.reason = "no cgroup hierarchy is mounted at /sys/fs/cgroup";
    if (place.controllers.empty()) place.version = 0;
    return place;
}

void remove_sandbox_cgroups(const std::vector<std::string>& directories) {
    // The kernel counts a killed process in its cgroup until it is fully gone,
    // so on a busy machine the first rmdir can meet EBUSY: retry for up to 2 s.
    for (auto it = directories.rbegin(); it != directories.rend(); ++it)
        for (int attempt = 0; attempt < 100 && ::rmdir(it->c_str()) != 0 && errno == EBUSY;
             ++attempt)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

std::vector<std::string> unenforced_limits(const osf::Spec& spec,
                                           const CgroupPlacement& placement) {
    std::vector<std::string> missing;
    for (const auto& [asked, controller] :
         {std::pair{spec.cpu.has_value(), "cpu"}, std::pair{spec.memory.has_value(), "memory"}})
        if (asked && std::find(placement.controllers.begin(), placement.controllers.end(),
                               controller) == placement.controllers.end())
            missing.push_back(controller);
    return missing;
}

} // namespace osf::local
