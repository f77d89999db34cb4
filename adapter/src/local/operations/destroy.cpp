#include "local/operations/destroy.hpp"

#include "local/operations/backend_support.hpp"
#include "local/operations/sandbox_removal.hpp"
#include "local/state/sandbox_store.hpp"

namespace osf::local::operations {

void destroy(OperationContext& context, const std::string& id) {
    const SandboxPaths paths = context.existing(id);
    stop_supervisor(paths);
    if (const auto meta = read_meta(paths.meta)) remove_buildah_container(meta->buildah_container);
    remove_sandbox(context, paths);
}

} // namespace osf::local::operations
