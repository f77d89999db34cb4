#include "local/operations/gc.hpp"

#include "local/operations/backend_support.hpp"
#include "local/operations/sandbox_removal.hpp"
#include "local/state/local_lifecycle.hpp"
#include "local/state/sandbox_store.hpp"

#include <filesystem>

namespace osf::local::operations {

namespace fs = std::filesystem;

std::vector<sandbox::Backend::Removal> gc_plan(OperationContext& context) {
    std::vector<sandbox::Backend::Removal> removals;
    const long long now = epoch_seconds(context.options.wall_clock());
    for (const auto& id : stored_sandbox_ids(context.root())) {
        const SandboxPaths paths = sandbox_paths(context.root(), id);
        const SandboxMeta meta = read_meta(paths.meta).value_or(SandboxMeta{});
        if (const auto reason = gc_reason(meta, liveness_of(paths), now))
            removals.push_back({id, *reason});
    }
    return removals;
}

bool gc_remove(OperationContext& context, const std::string& id) {
    const SandboxPaths paths = sandbox_paths(context.root(), id);
    if (!fs::is_directory(paths.dir)) return true; // a destroy or resume got there first
    const SandboxMeta meta = read_meta(paths.meta).value_or(SandboxMeta{});
    if (!gc_reason(meta, liveness_of(paths), epoch_seconds(context.options.wall_clock())))
        return false;
    kill_leftover_processes(paths);
    remove_buildah_container(meta.buildah_container);
    remove_sandbox(context, paths);
    return true;
}

} // namespace osf::local::operations
