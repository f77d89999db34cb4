

#include "local/launch/host_ids.hpp"
#include "local/launch/template_choice.hpp"
#include "local/local_backend.hpp"
#include "local/operations/backend_support.hpp"
#include "local/state/local_lifecycle.hpp"
#include "local/state/sandbox_store.hpp"

#include <filesystem>

namespace osf::local {

namespace fs = std::filesystem;

std::vector<sandbox::Backend::Removal> LocalBackend::gc_plan() {
    std::vector<Removal> removals;
    const long long now = epoch_seconds(options_.wall_clock());
    for (const auto& id : stored_sandbox_ids(root())) {
        const SandboxPaths paths = sandbox_paths(root(), id);
        const SandboxMeta meta = read_meta(paths.meta).value_or(SandboxMeta{});
        if (const auto reason = gc_reason(meta, liveness_of(paths), now))
            removals.push_back({id, *reason});
    }
    return removals;
}

bool LocalBackend::gc_remove(const std::string& id) {
    const SandboxPaths paths = sandbox_paths(root(), id);
    if (!fs::is_directory(paths.dir)) return true; // a destroy or resume got there first
    const SandboxMeta meta = read_meta(paths.meta).value_or(SandboxMeta{});
    if (!gc_reason(meta, liveness_of(paths), epoch_seconds(options_.wall_clock()))) return false;
    kill_leftover_processes(paths);
    remove_buildah_container(meta.buildah_container);
    remove_sandbox(paths);
    return true;
}

} // namespace osf::local
