#include "local/state/sandbox_store.hpp"

#include "local/state/tree_removal.hpp"
#include "osf/atomic_file.hpp"
#include "osf/whole_file.hpp"
#include "sandbox/sandbox_id.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <sys/file.h>
#include <thread>
#include <unistd.h>

namespace osf::local {

namespace fs = std::filesystem;

namespace {

std::optional<nlohmann::json> read_json(const std::string& path) {
    std::ifstream file(path);
    if (!file) return std::nullopt;
    auto json = nlohmann::json::parse(file, nullptr, false);
    if (!json.is_object()) return std::nullopt;
    return json;
}

void write_json(const std::string& path, const nlohmann::json& json) {
    osf::write_file_atomically(path, json.dump(2) + "\n", 0644);
}

std::optional<int> read_pid(const std::string& path) {
    std::ifstream file(path);
    int pid = 0;
    if (file >> pid && pid > 1) return pid;
    return std::nullopt;
}

bool wait_for_lock(const SandboxPaths& paths, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (supervisor_running(paths)) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

} // namespace

void write_meta(const std::string& path, const SandboxMeta& meta) {
    write_json(path, {{"id", meta.id},
                      {"template", meta.template_name},
                      {"base", meta.base},
                      {"root", meta.root},
                      {"buildahContainer", meta.buildah_container},
                      {"created", meta.created},
                      {"expires", meta.expires},
                      {"suspendedAt", meta.suspended_at},
                      {"hostId", meta.host_id},
                      {"workspaceBytes", meta.workspace_bytes},
                      {"labels", meta.labels}});
}

std::optional<SandboxMeta> read_meta(const std::string& path) {
    const auto json = read_json(path);
    if (!json) return std::nullopt;
    SandboxMeta meta;
    meta.id = json->value("id", "");
    meta.template_name = json->value("template", "");
    meta.base = json->value("base", "");
    meta.root = json->value("root", "/");
    meta.buildah_container = json->value("buildahContainer", "");
    meta.created = json->value("created", 0LL);
    meta.expires = json->value("expires", 0LL);
    meta.suspended_at = json->value("suspendedAt", 0LL);
    meta.host_id = json->value("hostId", 0U);
    meta.workspace_bytes = json->value("workspaceBytes", 0LL);
    // State written before labels existed has none.
    if (const auto labels = json->find("labels"); labels != json->end() && labels->is_object())
        for (const auto& [key, value] : labels->items())
            if (value.is_string()) meta.labels[key] = value.get<std::string>();
    return meta;
}

void write_snapshot_meta(const std::string& path, const SnapshotMeta& meta) {
    write_json(path, {{"of", meta.of}, {"base", meta.base}});
}

std::optional<SnapshotMeta> read_snapshot_meta(const std::string& path) {
    const auto json = read_json(path);
    if (!json) return std::nullopt;
    return SnapshotMeta{json->value("of", ""), json->value("base", "")};
}

bool supervisor_running(const SandboxPaths& paths) {
    const int fd = ::open(paths.lock.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    ::close(fd);
    return held;
}

std::vector<std::string> stored_sandbox_ids(const std::string& root) {
    std::vector<std::string> ids;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(sandboxes_dir(root), error)) {
        const std::string name = entry.path().filename().string();
        if (sandbox::normalize_sandbox_id(name) == name && entry.is_directory())
            ids.push_back(name);
    }
    return ids;
}

void kill_leftover_processes(const SandboxPaths& paths) {
    std::error_code error;
    const pid_t self = ::getpid();
    for (const auto& entry : fs::directory_iterator("/proc", error)) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        const int pid = std::stoi(name);
        if (pid == self) continue;
        std::string text = osf::read_whole_file(entry.path() / "cmdline").value_or("");
        const std::string program = fs::path(text.substr(0, text.find('\0'))).filename().string();
        if (program != "egress-proxy" && program != "bwrap" && program != "sandbox-local") continue;
        std::replace(text.begin(), text.end(), '\0', ' ');
        // The supervisor, its proxy and bwrap name the directory on their
        // command lines; the sandbox's own processes die with bwrap's PID namespace.
        if (text.find(paths.dir + "/") != std::string::npos ||
            text.find(paths.dir + " ") != std::string::npos)
            ::kill(pid, SIGKILL);
    }
}

void stop_supervisor(const SandboxPaths& paths) {
    if (supervisor_running(paths)) {
        if (const auto pid = read_pid(paths.pid)) ::kill(*pid, SIGTERM);
        if (!wait_for_lock(paths, std::chrono::seconds(30))) {
            if (const auto pid = read_pid(paths.pid)) ::kill(*pid, SIGKILL);
            wait_for_lock(paths, std::chrono::seconds(10));
        }
    }
    kill_leftover_processes(paths);
}

void remove_tree(const std::string& dir) {
    remove_tree_at(dir);
}

void make_private_dirs(const std::string& dir) {
    std::error_code error;
    const bool created = fs::create_directories(dir, error);
    if (error) throw std::runtime_error("cannot create " + dir + ": " + error.message());
    // Only what we made: an existing directory (a state root the user named) keeps its mode.
    if (created) fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace, error);
}

} // namespace osf::local
