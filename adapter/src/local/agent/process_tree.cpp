#include "local/agent/process_tree.hpp"

#include <chrono>
#include <csignal>
#include <dirent.h>
#include <fcntl.h>
#include <map>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace osf::local::agent {

namespace {

// The parent of every process: /proc/<pid>/stat's fourth field, after the
// command name in parentheses (which may itself hold ") ").
std::multimap<pid_t, pid_t> parents() {
    std::multimap<pid_t, pid_t> children;
    DIR* proc = ::opendir("/proc");
    if (proc == nullptr) return children;
    while (const dirent* entry = ::readdir(proc)) {
        char* end = nullptr;
        const long pid = std::strtol(entry->d_name, &end, 10);
        if (end == entry->d_name || *end != '\0') continue;
        const std::string path = std::string("/proc/") + entry->d_name + "/stat";
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        char buffer[512];
        const ssize_t got = ::read(fd, buffer, sizeof(buffer) - 1);
        ::close(fd);
        if (got <= 0) continue;
        const std::string stat(buffer, static_cast<std::size_t>(got));
        const auto close = stat.rfind(')');
        if (close == std::string::npos || close + 4 >= stat.size()) continue;
        const long parent = std::strtol(stat.c_str() + close + 4, nullptr, 10);
        children.emplace(static_cast<pid_t>(parent), static_cast<pid_t>(pid));
    }
    ::closedir(proc);
    return children;
}

} // namespace

std::vector<pid_t> children_of(pid_t parent) {
    std::vector<pid_t> found;
    const auto tree = parents();
    for (auto [it, end] = tree.equal_range(parent); it != end; ++it)
        found.push_back(it->second);
    return found;
}

std::vector<pid_t> descendants_of(pid_t ancestor) {
    const auto tree = parents();
    std::vector<pid_t> found;
    std::vector<pid_t> frontier = {ancestor};
    while (!frontier.empty()) {
        const pid_t parent = frontier.back();
        frontier.pop_back();
        for (auto [it, end] = tree.equal_range(parent); it != end; ++it) {
            found.push_back(it->second);
            frontier.push_back(it->second);
        }
    }
    return found;
}

void signal_descendants(pid_t ancestor, int signal) {
    for (const pid_t pid : descendants_of(ancestor))
        ::kill(pid, signal);
}

void kill_descendants(pid_t ancestor) {
    for (int round = 0; round < 1000; ++round) {
        const auto pids = descendants_of(ancestor);
        while (::waitpid(-1, nullptr, WNOHANG) > 0) {
        }
        if (pids.empty()) return;
        for (const pid_t pid : pids)
            ::kill(pid, SIGKILL);
        std::this_thread::sleep_for(std::chrono::milliseconds(round < 10 ? 1 : 10));
    }
}

} // namespace osf::local::agent
