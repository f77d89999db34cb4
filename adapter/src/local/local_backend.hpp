// sandbox-local's backend: each sandbox is a bubblewrap sandbox with its own
// user, mount, PID, IPC, UTS and network namespaces, held by a supervisor
// process with the sandbox's egress proxy outside the namespace.
#pragma once

#include "local/copy/copy_out_policy.hpp"
#include "local/launch/template_choice.hpp"
#include "local/protocol/exec_client.hpp"
#include "local/state/local_layout.hpp"
#include "local/state/sandbox_store.hpp"
#include "sandbox/backend.hpp"
#include "sandbox/policy_changer.hpp"

#include <chrono>
#include <functional>
#include <optional>

namespace osf::local {

struct LocalBackendOptions {
    sandbox::EnvLookup getenv;
    std::function<int()> pending_signal;
    std::function<std::chrono::system_clock::time_point()> wall_clock;
    std::string self_executable;           // started as the supervisor
    std::string program = "sandbox-local"; // the prefix of warnings
};

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
    // allow, revoke (local/policy_command.cpp): the stored spec, then the running proxy.
    sandbox::PolicyChangeResult change_policy(const std::string& id,
                                              const osf::policy_edit::Edit& edit,
                                              const std::string& by) override;

private:
    struct ResolvedTemplate {
        TemplateChoice choice;
        SandboxMeta meta;
        std::string snapshot_workspace; // set when starting from a snapshot
    };
    // The spec's template down to what the sandbox runs on; nothing is made.
    ResolvedTemplate resolve_template(const sandbox::SandboxRequest& request);
    const std::string& root();
    SandboxPaths existing(const std::string& id);
    // Starts the sandbox's supervisor and waits until it says ready; on a
    // failure or interruption it is stopped (the files stay) before the throw.
    void start_supervisor(const SandboxPaths& paths, std::ostream& progress);
    // A host id no other sandbox of the state root holds (called under its lock).
    unsigned allocate_host_id();
    // Everything of a sandbox that is gone: its listeners' file, its
    // workspace's file system, its directory.
    void remove_sandbox(const SandboxPaths& paths);
    // Runs a command in the sandbox; the CLI copies between `in`, `out`,
    // `err` and the command's pipes (exec_client.hpp).
    ExecOutcome run_in_sandbox(const std::string& id, const std::vector<std::string>& command,
                               const ExecStreams& streams, bool terminal,
                               std::optional<std::chrono::seconds> timeout);
    // The bounds of a copy out of (or a snapshot of) the sandbox: its storage
    // and the OSF_SANDBOX_COPY_* variables (UsageError for a bad value).
    CopyBounds copy_bounds_of(const std::string& id);
    // A step of a copy run in the sandbox: stdout to `out` bounded by
    // bounds.bytes, stderr escaped to the CLI's, at most bounds.timeout. Its
    // exit code; CommandFailed past a bound (the command is stopped).
    int run_to_end(const std::string& id, const std::vector<std::string>& command, int in, int out,
                   const CopyBounds& bounds);

    LocalBackendOptions options_;
    std::string root_;
};

} // namespace osf::local
