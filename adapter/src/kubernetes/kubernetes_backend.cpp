#include "kubernetes/kubernetes_backend.hpp"

#include "kubernetes/egress_log_source.hpp"
#include "kubernetes/manifests/names.hpp"
#include "kubernetes/operations/copy.hpp"
#include "kubernetes/operations/create.hpp"
#include "kubernetes/operations/destroy.hpp"
#include "kubernetes/operations/egress_log.hpp"
#include "kubernetes/operations/exec.hpp"
#include "kubernetes/operations/extend.hpp"
#include "kubernetes/operations/gc.hpp"
#include "kubernetes/operations/list.hpp"
#include "kubernetes/operations/policy.hpp"
#include "kubernetes/operations/resume.hpp"
#include "kubernetes/operations/snapshot.hpp"
#include "kubernetes/operations/suspend.hpp"
#include "kubernetes/upstream_ca_bundle.hpp"
#include "sandbox/settings.hpp"

namespace osf::kubernetes {

namespace {

// A spec without `template` runs OSF_SANDBOX_DEFAULT_IMAGE; the egress pod
// gets OSF_UPSTREAM_CA_BUNDLE's certificates.
sandbox::SandboxRequest with_default_image(sandbox::SandboxRequest request) {
    if (request.spec.template_name.empty())
        request.spec.template_name = request.settings.default_image;
    request.upstream_ca_pem = read_upstream_ca_bundle(request.settings.upstream_ca_bundle);
    return request;
}

} // namespace

nlohmann::json KubernetesBackend::names(const sandbox::SandboxRequest& request) {
    return {{"namespace", request.settings.ns},
            {"claim", manifests::sandbox_name(request.id)},
            {"egressProxy", manifests::egress_name(request.id)}};
}

nlohmann::json KubernetesBackend::describe(const sandbox::SandboxRequest& request) {
    return dry_run_objects(context_, with_default_image(request));
}

void KubernetesBackend::create(const sandbox::SandboxRequest& request, std::ostream& progress) {
    create_sandbox(context_, with_default_image(request), progress);
}

sandbox::ExecResult KubernetesBackend::exec(const sandbox::ExecRequest& request) {
    const auto outcome =
        exec_in_sandbox(context_, request.id, request.command, request.terminal, request.timeout);
    return {outcome.exit_code, outcome.timed_out};
}

void KubernetesBackend::copy(const sandbox::CopyRequest& request) {
    const commands::CopyEndpoint sandbox{request.id, request.sandbox_path};
    const commands::CopyEndpoint local{std::nullopt, request.local_path};
    if (request.into_sandbox)
        copy_files(context_, local, sandbox);
    else
        copy_files(context_, sandbox, local);
}

std::string KubernetesBackend::snapshot(const std::string& id, const std::string& stamp) {
    return take_snapshot(context_, id, stamp);
}

void KubernetesBackend::check_exists(const std::string& id) {
    check_sandbox_exists(context_, id);
}

void KubernetesBackend::destroy(const std::string& id) {
    destroy_sandbox(context_, id);
}

std::vector<sandbox::SandboxRow> KubernetesBackend::list(bool with_policy) {
    return list_sandboxes(context_, with_policy);
}

void KubernetesBackend::egress_log(const std::string& id, std::ostream& out, bool follow,
                                   bool raw) {
    print_egress_log(context_, id, out, follow, raw);
}

std::unique_ptr<sandbox::EgressLogAccess>
KubernetesBackend::egress_log_access(const std::string& id) {
    const auto settings = sandbox::read_settings(context_.getenv);
    return kube_log_access(context_.runner, settings.ns, id);
}

std::vector<KubernetesBackend::Removal> KubernetesBackend::gc_plan() {
    std::vector<Removal> removals;
    for (auto& removal : plan_gc(context_))
        removals.push_back({std::move(removal.id), std::move(removal.reason)});
    return removals;
}

bool KubernetesBackend::gc_remove(const std::string& id) {
    gc_remove_sandbox(context_, id);
    return true;
}

bool KubernetesBackend::remove_batch(const std::vector<std::string>& ids) {
    destroy_sandboxes(context_, ids);
    return true;
}

sandbox::WallTime KubernetesBackend::extend(const std::string& id, std::chrono::seconds by,
                                            std::chrono::seconds max) {
    return extend_sandbox(context_, id, by, max);
}

sandbox::StateChange KubernetesBackend::suspend(const std::string& id) {
    return suspend_sandbox(context_, id) ? sandbox::StateChange::Done
                                         : sandbox::StateChange::AlreadyThere;
}

sandbox::StateChange KubernetesBackend::resume(const std::string& id, std::ostream&) {
    return resume_sandbox(context_, id) ? sandbox::StateChange::Done
                                        : sandbox::StateChange::AlreadyThere;
}

sandbox::PolicyChangeResult KubernetesBackend::change_policy(const std::string& id,
                                                             const osf::policy_edit::Edit& edit,
                                                             const std::string& by) {
    return change_sandbox_policy(context_, id, edit, by);
}

} // namespace osf::kubernetes
