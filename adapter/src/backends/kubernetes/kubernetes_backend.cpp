#include "backends/kubernetes/kubernetes_backend.hpp"

#include "backends/kubernetes/copy_command.hpp"
#include "backends/kubernetes/create_command.hpp"
#include "backends/kubernetes/destroy_command.hpp"
#include "backends/kubernetes/egress_log_command.hpp"
#include "backends/kubernetes/egress_log_source.hpp"
#include "backends/kubernetes/exec_command.hpp"
#include "backends/kubernetes/extend_command.hpp"
#include "backends/kubernetes/gc_command.hpp"
#include "backends/kubernetes/list_command.hpp"
#include "backends/kubernetes/resume_command.hpp"
#include "backends/kubernetes/snapshot_command.hpp"
#include "backends/kubernetes/suspend_command.hpp"
#include "manifests/settings.hpp"

namespace osf::backends::kubernetes {

namespace {

// A spec without `template` runs OSF_SANDBOX_DEFAULT_IMAGE.
manifests::SandboxRequest with_default_image(manifests::SandboxRequest request) {
    if (request.spec.template_name.empty())
        request.spec.template_name = request.settings.default_image;
    return request;
}

} // namespace

nlohmann::json KubernetesBackend::describe(const manifests::SandboxRequest& request) {
    return commands::dry_run_objects(context_, with_default_image(request));
}

void KubernetesBackend::create(const manifests::SandboxRequest& request, std::ostream& progress) {
    commands::create_sandbox(context_, with_default_image(request), progress);
}

backend::ExecResult KubernetesBackend::exec(const backend::ExecRequest& request) {
    const auto outcome = commands::exec_in_sandbox(context_, request.id, request.command,
                                                   request.terminal, request.timeout);
    return {outcome.exit_code, outcome.timed_out};
}

void KubernetesBackend::copy(const backend::CopyRequest& request) {
    const commands::CopyEndpoint sandbox{request.id, request.sandbox_path};
    const commands::CopyEndpoint local{std::nullopt, request.local_path};
    if (request.into_sandbox)
        commands::copy_files(context_, local, sandbox);
    else
        commands::copy_files(context_, sandbox, local);
}

std::string KubernetesBackend::snapshot(const std::string& id, const std::string& stamp) {
    return commands::take_snapshot(context_, id, stamp);
}

void KubernetesBackend::check_exists(const std::string& id) {
    commands::check_sandbox_exists(context_, id);
}

void KubernetesBackend::destroy(const std::string& id) {
    commands::destroy_sandbox(context_, id);
}

std::vector<manifests::SandboxRow> KubernetesBackend::list() {
    return commands::list_sandboxes(context_);
}

void KubernetesBackend::egress_log(const std::string& id, std::ostream&, bool follow, bool raw) {
    // kubectl writes the log to this process's stdout itself.
    commands::print_egress_log(context_, id, follow, raw);
}

std::unique_ptr<commands::EgressLogAccess>
KubernetesBackend::egress_log_access(const std::string& id) {
    const auto settings = manifests::read_settings(context_.getenv);
    return commands::kube_log_access(context_.runner, settings.ns, id);
}

std::vector<KubernetesBackend::Removal> KubernetesBackend::gc_plan() {
    std::vector<Removal> removals;
    for (auto& removal : commands::plan_gc(context_))
        removals.push_back({std::move(removal.id), std::move(removal.reason)});
    return removals;
}

bool KubernetesBackend::gc_remove(const std::string& id) {
    commands::gc_remove_sandbox(context_, id);
    return true;
}

manifests::WallTime KubernetesBackend::extend(const std::string& id, std::chrono::seconds by,
                                              std::chrono::seconds max) {
    return commands::extend_sandbox(context_, id, by, max);
}

backend::StateChange KubernetesBackend::suspend(const std::string& id) {
    return commands::suspend_sandbox(context_, id) ? backend::StateChange::Done
                                                   : backend::StateChange::AlreadyThere;
}

backend::StateChange KubernetesBackend::resume(const std::string& id, std::ostream&) {
    return commands::resume_sandbox(context_, id) ? backend::StateChange::Done
                                                  : backend::StateChange::AlreadyThere;
}

} // namespace osf::backends::kubernetes
