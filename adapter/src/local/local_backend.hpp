// sandbox-local's backend: each sandbox is a bubblewrap sandbox with its own
// user, mount, PID, IPC, UTS and network namespaces, held by a supervisor
// process with the sandbox's egress proxy outside the namespace. Each method
// is one of operations/'s free functions over the backend's OperationContext.
#pragma once

#include "local/operations/operation_context.hpp"
#include "sandbox/backend.hpp"
#include "sandbox/policy_changer.hpp"

#include <chrono>
#include <memory>

namespace osf::local {

class LocalBackend : public sandbox::Backend, public sandbox::PolicyChanger {
public:
    explicit LocalBackend(LocalBackendOptions options);

    nlohmann::json describe(const sandbox::SandboxRequest& request) override;
    void create(const sandbox::SandboxRequest& request, std::ostream& progress) override;
    sandbox::ExecResult exec(const sandbox::ExecRequest& request) override;
    void copy(const sandbox::CopyRequest& request) override;
    std::string snapshot(const std::string& id, const std::string& stamp) override;
    void destroy(const std::string& id) override;
    // The policy is read with the rest of the sandbox's directory, always.
    std::vector<sandbox::SandboxRow> list(bool with_policy) override;
    void egress_log(const std::string& id, std::ostream& out, bool follow, bool raw) override;
    std::unique_ptr<sandbox::EgressLogAccess> egress_log_access(const std::string& id) override;
    std::vector<Removal> gc_plan() override;
    bool gc_remove(const std::string& id) override;
    sandbox::WallTime extend(const std::string& id, std::chrono::seconds by,
                             std::chrono::seconds max) override;
    sandbox::StateChange suspend(const std::string& id) override;
    sandbox::StateChange resume(const std::string& id, std::ostream& progress) override;
    // allow, revoke: the stored spec, then the running proxy.
    sandbox::PolicyChangeResult change_policy(const std::string& id,
                                              const osf::policy_edit::Edit& edit,
                                              const std::string& by) override;

private:
    operations::OperationContext context_;
};

} // namespace osf::local
