#include "local/host/host_mounts.hpp"

#include "local/launch/cgroup_limits.hpp"
#include "local/launch/sandbox_environment.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sched.h>
#include <stdexcept>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace osf::local {

namespace fs = std::filesystem;

namespace {

std::vector<HostEntry> list_entries(const std::string& dir) {
    std::vector<HostEntry> entries;
    std::error_code error;
    for (const auto& item : fs::directory_iterator(dir, error)) {
        HostEntry entry;
        entry.name = item.path().filename().string();
        struct stat info {};
        if (::lstat(item.path().c_str(), &info) != 0) continue;
        if (S_ISLNK(info.st_mode)) {
            entry.kind = HostEntry::Kind::Symlink;
            entry.link_target = fs::read_symlink(item.path(), error).string();
            if (error) continue;
        } else if (S_ISDIR(info.st_mode)) {
            entry.kind = HostEntry::Kind::Directory;
            entry.world_readable = (info.st_mode & S_IROTH) && (info.st_mode & S_IXOTH);
        } else if (S_ISREG(info.st_mode)) {
            entry.kind = HostEntry::Kind::File;
            entry.world_readable = (info.st_mode & S_IROTH) != 0;
        }
        entries.push_back(entry);
    }
    std::sort(entries.begin(), entries.end(),
              [](const HostEntry& a, const HostEntry& b) { return a.name < b.name; });
    return entries;
}

// The dynamic loader and the directories of the shared libraries this
// process has mapped: what the agent needs to run in a foreign root.
void find_loaded_libraries(std::string& loader, std::vector<std::string>& dirs) {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        const auto slash = line.find('/');
        if (slash == std::string::npos) continue;
        const fs::path path = line.substr(slash);
        const std::string name = path.filename().string();
        if (name.find(".so") == std::string::npos) continue;
        if (name.starts_with("ld-linux") || name.starts_with("ld64")) loader = path.string();
        const std::string dir = path.parent_path().string();
        if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
    }
}

std::string self_executable() {
    std::error_code error;
    const auto path = fs::read_symlink("/proc/self/exe", error);
    if (error) throw std::runtime_error("cannot find my own executable: " + error.message());
    return path.string();
}

// Asks the kernel directly: can this process create a user namespace?
bool can_create_user_namespace() {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(::unshare(CLONE_NEWUSER) == 0 ? 0 : 1);
    int status = 0;
    if (child < 0 || ::waitpid(child, &status, 0) != child) return false;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

} // namespace

bool bwrap_gets_user_namespace() {
    return ::geteuid() != 0 || can_create_user_namespace();
}

SandboxMounts read_host_mounts(const SandboxPaths& paths, const sandbox::SandboxRequest& request,
                               const std::string& root, const std::string& cache) {
    SandboxMounts mounts;
    mounts.id = request.id;
    mounts.root_source = root;
    mounts.host_template = root == "/";
    mounts.root_entries = list_entries(root);
    const std::string etc = (root == "/" ? std::string() : root) + "/etc";
    mounts.etc_entries = list_entries(etc);
    for (const auto& masked : etc_masked_directories()) {
        const std::string relative = masked.substr(std::string("/etc").size());
        if (fs::is_directory(etc + relative)) mounts.etc_masks_present.push_back(masked);
    }
    for (const auto& masked : proc_masked_files())
        if (fs::exists(masked)) mounts.proc_masks_present.push_back(masked);
    mounts.workspace = paths.workspace;
    mounts.cache = cache;
    mounts.ca_file = paths.sandbox_ca;
    mounts.ssh_config = paths.ssh_config;
    mounts.egress_socket = paths.egress_socket;
    mounts.agent_binary = self_executable();
    if (!mounts.host_template) find_loaded_libraries(mounts.host_loader, mounts.host_library_dirs);
    mounts.environment = sandbox_environment(request);
    if (request.spec.user) {
        mounts.uid = request.spec.user->uid;
        mounts.gid = request.spec.user->gid;
    }
    const TmpfsSizes sizes = tmpfs_sizes(request.spec);
    mounts.tmp_bytes = sizes.tmp;
    mounts.shm_bytes = sizes.shm;
    return mounts;
}

} // namespace osf::local
