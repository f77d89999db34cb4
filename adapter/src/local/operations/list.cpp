#include "local/operations/list.hpp"

#include "local/operations/backend_support.hpp"
#include "local/state/local_lifecycle.hpp"
#include "local/state/sandbox_store.hpp"
#include "osf/whole_file.hpp"
#include "sandbox/lifetime.hpp"
#include "sandbox/spec_policy.hpp"

#include <algorithm>

namespace osf::local::operations {

std::vector<sandbox::SandboxRow> list(OperationContext& context) {
    std::vector<sandbox::SandboxRow> rows;
    const long long now = epoch_seconds(context.options.wall_clock());
    for (const auto& id : stored_sandbox_ids(context.root())) {
        const SandboxPaths paths = sandbox_paths(context.root(), id);
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

} // namespace osf::local::operations
