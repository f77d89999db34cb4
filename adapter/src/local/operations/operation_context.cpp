#include "local/operations/operation_context.hpp"

#include "commands/command_errors.hpp"

#include <filesystem>
#include <unistd.h>

namespace osf::local::operations {

const std::string& OperationContext::root() {
    if (root_.empty()) root_ = state_root(options.getenv, ::geteuid() == 0);
    return root_;
}

SandboxPaths OperationContext::existing(const std::string& id) {
    SandboxPaths paths = sandbox_paths(root(), id);
    if (!std::filesystem::is_directory(paths.dir))
        throw commands::CommandFailed("no sandbox " + id);
    return paths;
}

} // namespace osf::local::operations
