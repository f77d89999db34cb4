#include "local/operations/sandbox_removal.hpp"

#include "local/host/cgroup_placement.hpp"
#include "local/host/workspace_volume.hpp"
#include "local/state/sandbox_store.hpp"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace osf::local::operations {

namespace fs = std::filesystem;

void remove_sandbox(OperationContext& context, const SandboxPaths& paths) {
    const std::string id = fs::path(paths.dir).filename().string();
    std::error_code ignored;
    fs::remove(listeners_dir(context.root()) + "/" + id, ignored);
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

} // namespace osf::local::operations
