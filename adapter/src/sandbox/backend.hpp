// What a place that runs sandboxes must do, so that every sandbox CLI shares
// one command layer (commands/backend_commands) and differs only beneath this
// interface. Errors are the command layer's: UsageError (exit 2),
// CommandFailed (exit 1), Interrupted (128 + signal); see commands/command_errors.hpp.
#pragma once

#include "sandbox/egress_log_access.hpp"
#include "sandbox/lifetime.hpp"
#include "sandbox/sandbox_list.hpp"
#include "sandbox/sandbox_request.hpp"

#include <chrono>
#include <iosfwd>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace osf::sandbox {

struct ExecRequest {
    std::string id;
    std::vector<std::string> command;
    // Stdin and stdout are a terminal: the command gets the caller's terminal.
    bool terminal = false;
    // At this long the command and every process it started are stopped
    // (TERM, a grace, KILL) and exec answers timed_out.
    std::chrono::seconds timeout{std::chrono::hours(1)};
};

struct ExecResult {
    int exit_code = 0;
    bool timed_out = false; // the command was stopped at its timeout (exit 137)
};

// What suspend and resume found.
enum class StateChange { Done, AlreadyThere };

// One side of a copy: a local path, or a path inside the sandbox `id`
// (absolute; relative paths were already put below /workspace).
struct CopyRequest {
    std::string id;
    std::string sandbox_path;
    std::string local_path;
    bool into_sandbox = true;
};

class Backend {
public:
    virtual ~Backend() = default;

    // What create would start, as JSON (create --dry-run); touches nothing.
    // Never holds a secret's value.
    virtual nlohmann::json describe(const sandbox::SandboxRequest& request) = 0;
    // Starts the sandbox `request.id` (spec, settings and secrets already
    // checked) and returns once it is ready. Progress goes to `progress`. On any
    // failure or interruption everything made is removed before the throw.
    virtual void create(const sandbox::SandboxRequest& request, std::ostream& progress) = 0;
    // The names of the started sandbox's parts a program may look for
    // (create -o json's `names`): the Kubernetes objects, say. None by default.
    virtual nlohmann::json names(const sandbox::SandboxRequest& /*request*/) {
        return nlohmann::json::object();
    }
    // Runs a command in /workspace with the caller's stdin, stdout and stderr;
    // returns the command's exit code (126 when it cannot be run, 127 when it
    // is not found). On SIGINT or SIGTERM (commands/interrupt.hpp) the command
    // is stopped and Interrupted is thrown.
    virtual ExecResult exec(const ExecRequest& request) = 0;
    virtual void copy(const CopyRequest& request) = 0;
    // Keeps /workspace; returns the template name a spec can start from.
    virtual std::string snapshot(const std::string& id, const std::string& stamp) = 0;
    // Called by destroy before anything else touches the sandbox (its log is
    // saved, then destroy runs): CommandFailed "no sandbox <ID>" where the
    // backend's destroy would not find it by itself.
    virtual void check_exists(const std::string& /*id*/) {}
    virtual void destroy(const std::string& id) = 0;
    // `with_policy`: each row's policy is wanted (list -o json, -o yaml); a
    // backend may leave it out otherwise, where reading it costs.
    virtual std::vector<sandbox::SandboxRow> list(bool with_policy) = 0;
    // Streams the egress log (JSON lines) to `out`, as it comes (what
    // egress-log --refused --follow reads). With `follow`, keeps printing
    // whole lines as they are written until the sandbox stops running or
    // `out` fails; Interrupted on SIGINT or SIGTERM.
    virtual void egress_log(const std::string& id, std::ostream& out, bool follow, bool raw) = 0;
    // The sandbox's log and the key stored for its current proxy, as
    // egress-log --verify/--summary, destroy --save-log and gc --save-logs take
    // them; CommandFailed "no sandbox <ID>" when there is none.
    virtual std::unique_ptr<sandbox::EgressLogAccess> egress_log_access(const std::string& id) = 0;
    // What gc removes: what sandboxes whose supervisor is gone left behind,
    // and suspended sandboxes past their expiry, one reason each.
    struct Removal {
        std::string id;
        std::string reason;
    };
    virtual std::vector<Removal> gc_plan() = 0;
    // Removes one of them; false (nothing done) when it no longer qualifies.
    virtual bool gc_remove(const std::string& id) = 0;
    // Removes several sandboxes at once (gc's and destroy's batches), in a
    // few calls whatever their number; false (nothing done) from a backend
    // that removes one at a time.
    virtual bool remove_batch(const std::vector<std::string>& ids) {
        (void)ids;
        return false;
    }
    // Moves the sandbox's expiry `by` later (from now when it passed); returns
    // the new expiry. sandbox::LifetimeError past created + `max`.
    virtual sandbox::WallTime extend(const std::string& id, std::chrono::seconds by,
                                     std::chrono::seconds max) = 0;
    // Stops every process of the sandbox and keeps its files.
    virtual StateChange suspend(const std::string& id) = 0;
    // Starts a suspended sandbox again (a new egress proxy: a new CA and log key).
    virtual StateChange resume(const std::string& id, std::ostream& progress) = 0;
};

} // namespace osf::sandbox
