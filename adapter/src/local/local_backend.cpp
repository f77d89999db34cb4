#include "local/local_backend.hpp"

#include "commands/command_errors.hpp"
#include "local/host/cgroup_placement.hpp"
#include "local/host/workspace_volume.hpp"
#include "local/operations/backend_support.hpp"
#include "local/state/local_lifecycle.hpp"
#include "local/state/sandbox_store.hpp"
#include "osf/whole_file.hpp"
#include "sandbox/lifetime.hpp"
#include "sandbox/spec_policy.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace osf::local {

namespace fs = std::filesystem;
using commands::CommandFailed;

LocalBackend::LocalBackend(LocalBackendOptions options) : options_(std::move(options)) {}

const std::string& LocalBackend::root() {
    if (root_.empty()) root_ = state_root(options_.getenv, ::geteuid() == 0);
    return root_;
}

SandboxPaths LocalBackend::existing(const std::string& id) {
    SandboxPaths paths = sandbox_paths(root(), id);
    if (!fs::is_directory(paths.dir)) throw CommandFailed("no sandbox " + id);
    return paths;
}

void LocalBackend::destroy(const std::string& id) {
    const SandboxPaths paths = existing(id);
    stop_supervisor(paths);
    if (const auto meta = read_meta(paths.meta)) remove_buildah_container(meta->buildah_container);
    remove_sandbox(paths);
}

void LocalBackend::remove_sandbox(const SandboxPaths& paths) {
    const std::string id = fs::path(paths.dir).filename().string();
    std::error_code ignored;
    fs::remove(listeners_dir(root()) + "/" + id, ignored);
    // What a killed supervisor could not remove (empty by now: nothing of it runs).
    std::ifstream cgroups(paths.cgroups);
    std::vector<std::string> directories;
    for (std::string line; std::getline(cgroups, line);)
        if (line.starts_with("/sys/fs/cgroup/") &&
            line.find("/osf-sandbox-" + id) != std::string::npos)
            directories.push_back(line);
    remove_sandbox_cgroups(directories);
    unmount_workspace_volume(paths);
    remove_tree(paths.dir);
}

std::vector<sandbox::SandboxRow> LocalBackend::list(bool /*with_policy*/) {
    std::vector<sandbox::SandboxRow> rows;
    const long long now = epoch_seconds(options_.wall_clock());
    for (const auto& id : stored_sandbox_ids(root())) {
        const SandboxPaths paths = sandbox_paths(root(), id);
        const SandboxMeta meta = read_meta(paths.meta).value_or(SandboxMeta{});
        sandbox::SandboxRow row;
        row.id = id;
        row.status = sandbox_status(meta, liveness_of(paths));
        row.created = meta.created != 0 ? sandbox::rfc3339(wall_time(meta.created)) : "";
        row.age_seconds = meta.created != 0 ? std::max(0LL, now - meta.created) : 0;
        row.image = !meta.template_name.empty() ? meta.template_name : "-";
        row.labels = meta.labels;
        if (meta.expires != 0) {
            row.expires = sandbox::rfc3339(wall_time(meta.expires));
            row.expires_in_seconds = meta.expires - now;
        }
        // The stored spec, which allow and revoke rewrite: the policy in force.
        if (const auto spec = osf::read_whole_file(paths.spec))
            row.policy = sandbox::spec_policy(*spec);
        rows.push_back(row);
    }
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
        return a.age_seconds != b.age_seconds ? a.age_seconds > b.age_seconds : a.id < b.id;
    });
    return rows;
}

} // namespace osf::local
