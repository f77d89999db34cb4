#include "local/local_backend.hpp"

#include "local/operations/copy.hpp"
#include "local/operations/create.hpp"
#include "local/operations/destroy.hpp"
#include "local/operations/egress_log.hpp"
#include "local/operations/exec.hpp"
#include "local/operations/gc.hpp"
#include "local/operations/lifetime.hpp"
#include "local/operations/list.hpp"
#include "local/operations/policy.hpp"
#include "local/operations/snapshot.hpp"

namespace osf::local {

LocalBackend::LocalBackend(LocalBackendOptions options) : context_(std::move(options)) {}

nlohmann::json LocalBackend::describe(const sandbox::SandboxRequest& request) {
    return operations::describe(context_, request);
}

void LocalBackend::create(const sandbox::SandboxRequest& request, std::ostream& progress) {
    operations::create(context_, request, progress);
}

sandbox::ExecResult LocalBackend::exec(const sandbox::ExecRequest& request) {
    return operations::exec(context_, request);
}

void LocalBackend::copy(const sandbox::CopyRequest& request) {
    operations::copy(context_, request);
}

std::string LocalBackend::snapshot(const std::string& id, const std::string& stamp) {
    return operations::snapshot(context_, id, stamp);
}

void LocalBackend::destroy(const std::string& id) {
    operations::destroy(context_, id);
}

std::vector<sandbox::SandboxRow> LocalBackend::list(bool /*with_policy*/) {
    return operations::list(context_);
}

void LocalBackend::egress_log(const std::string& id, std::ostream& out, bool follow, bool raw) {
    operations::egress_log(context_, id, out, follow, raw);
}

std::unique_ptr<sandbox::EgressLogAccess> LocalBackend::egress_log_access(const std::string& id) {
    return operations::egress_log_access(context_, id);
}

std::vector<sandbox::Backend::Removal> LocalBackend::gc_plan() {
    return operations::gc_plan(context_);
}

bool LocalBackend::gc_remove(const std::string& id) {
    return operations::gc_remove(context_, id);
}

sandbox::WallTime LocalBackend::extend(const std::string& id, std::chrono::seconds by,
                                       std::chrono::seconds max) {
    return operations::extend(context_, id, by, max);
}

sandbox::StateChange LocalBackend::suspend(const std::string& id) {
    return operations::suspend(context_, id);
}

sandbox::StateChange LocalBackend::resume(const std::string& id, std::ostream& progress) {
    return operations::resume(context_, id, progress);
}

sandbox::PolicyChangeResult LocalBackend::change_policy(const std::string& id,
                                                        const osf::policy_edit::Edit& edit,
                                                        const std::string& by) {
    return operations::change_policy(context_, id, edit, by);
}

} // namespace osf::local
