#include "local/operations/snapshot.hpp"

#include "commands/command_errors.hpp"
#include "local/copy/workspace_copy.hpp"
#include "local/operations/in_sandbox.hpp"
#include "local/state/sandbox_store.hpp"
#include "sandbox/sandbox_id.hpp"

#include <filesystem>
#include <iostream>

namespace osf::local::operations {

namespace fs = std::filesystem;
using commands::CommandFailed;

std::string snapshot(OperationContext& context, const std::string& id, const std::string& stamp) {
    const SandboxPaths paths = context.existing(id);
    const auto meta = read_meta(paths.meta);
    if (!meta) throw CommandFailed("sandbox " + id + " has no " + paths.meta);
    const std::string name = sandbox::snapshot_name(id, stamp);
    const std::string dir = snapshot_dir(context.root(), name);
    if (fs::exists(dir)) throw CommandFailed("snapshot " + name + " already exists");
    make_private_dirs(dir);
    try {
        copy_workspace(paths.workspace, dir + "/workspace", copy_bounds_of(context, id).bytes,
                       std::cerr);
        write_snapshot_meta(dir + "/snapshot.json", {id, meta->base});
    } catch (...) {
        remove_tree(dir);
        throw;
    }
    return name;
}

} // namespace osf::local::operations
