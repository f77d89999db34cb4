// The Kubernetes backend: sandboxes as agent-sandbox claims in one namespace,
// each behind its own egress-proxy pod, driven through kubectl. One file per
// command holds its work (create_command, exec_command, ...).
#pragma once

#include "kubernetes/operation_context.hpp"
#include "sandbox/backend.hpp"
#include "sandbox/policy_changer.hpp"

#include <optional>
#include <string>

namespace osf::kubernetes {

class KubernetesBackend final : public sandbox::Backend, public sandbox::PolicyChanger {
public:
    // The runner, variables, clocks and signals of `context` (which must
    // outlive the backend).
    explicit KubernetesBackend(kubernetes::OperationContext& context) : context_(context) {}

    nlohmann::json describe(const sandbox::SandboxRequest& request) override;
    void create(const sandbox::SandboxRequest& request, std::ostream& progress) override;
    // {namespace, claim, egressProxy}: the SandboxClaim and the egress pod and Service.
    nlohmann::json names(const sandbox::SandboxRequest& request) override;
    sandbox::ExecResult exec(const sandbox::ExecRequest& request) override;
    void copy(const sandbox::CopyRequest& request) override;
    std::string snapshot(const std::string& id, const std::string& stamp) override;
    // CommandFailed "no sandbox <ID>" when no object has the ID's label.
    void check_exists(const std::string& id) override;
    void destroy(const std::string& id) override;
    std::vector<sandbox::SandboxRow> list(bool with_policy) override;
    void egress_log(const std::string& id, std::ostream& out, bool follow, bool raw) override;
    std::unique_ptr<sandbox::EgressLogAccess> egress_log_access(const std::string& id) override;
    std::vector<Removal> gc_plan() override;
    bool gc_remove(const std::string& id) override;
    bool remove_batch(const std::vector<std::string>& ids) override;
    sandbox::WallTime extend(const std::string& id, std::chrono::seconds by,
                             std::chrono::seconds max) override;
    sandbox::StateChange suspend(const std::string& id) override;
    sandbox::StateChange resume(const std::string& id, std::ostream& progress) override;
    sandbox::PolicyChangeResult change_policy(const std::string& id,
                                              const osf::policy_edit::Edit& edit,
                                              const std::string& by) override;

private:
    kubernetes::OperationContext& context_;
};

} // namespace osf::kubernetes
