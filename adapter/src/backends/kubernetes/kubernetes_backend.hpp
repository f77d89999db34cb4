// The Kubernetes backend: sandboxes as agent-sandbox claims in one namespace,
// each behind its own egress-proxy pod, driven through kubectl. One file per
// command holds its work (create_command, exec_command, ...).
#pragma once

#include "backend/backend.hpp"
#include "commands/command_context.hpp"

#include <optional>
#include <string>

namespace osf::backends::kubernetes {

class KubernetesBackend final : public backend::Backend {
public:
    // The runner, variables, clocks and signals of `context` (which must
    // outlive the backend).
    explicit KubernetesBackend(commands::CommandContext& context) : context_(context) {}

    nlohmann::json describe(const manifests::SandboxRequest& request) override;
    void create(const manifests::SandboxRequest& request, std::ostream& progress) override;
    backend::ExecResult exec(const backend::ExecRequest& request) override;
    void copy(const backend::CopyRequest& request) override;
    std::string snapshot(const std::string& id, const std::string& stamp) override;
    // CommandFailed "no sandbox <ID>" when no object has the ID's label.
    void check_exists(const std::string& id) override;
    void destroy(const std::string& id) override;
    std::vector<manifests::SandboxRow> list() override;
    void egress_log(const std::string& id, std::ostream& out, bool follow, bool raw) override;
    std::unique_ptr<commands::EgressLogAccess> egress_log_access(const std::string& id) override;
    std::vector<Removal> gc_plan() override;
    bool gc_remove(const std::string& id) override;
    manifests::WallTime extend(const std::string& id, std::chrono::seconds by,
                               std::chrono::seconds max) override;
    backend::StateChange suspend(const std::string& id) override;
    backend::StateChange resume(const std::string& id, std::ostream& progress) override;

private:
    commands::CommandContext& context_;
};

} // namespace osf::backends::kubernetes
