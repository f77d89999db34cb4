// What a place that runs sandboxes must do, so that every sandbox CLI shares
// one command layer (backend_commands) and differs only beneath this
// interface. Errors are the command layer's: UsageError (exit 2),
// CommandFailed (exit 1), Interrupted (128 + signal); see commands/command_errors.hpp.
#pragma once

#include "manifests/sandbox_list.hpp"
#include "manifests/sandbox_request.hpp"

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace osf::backend {

struct ExecRequest {
    std::string id;
    std::vector<std::string> command;
    // Stdin and stdout are a terminal: the command gets the caller's terminal.
    bool terminal = false;
};

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
    virtual nlohmann::json describe(const manifests::SandboxRequest& request) = 0;
    // Starts the sandbox `request.id` (spec, settings and secrets already
    // checked) and returns once it is ready. Progress goes to `progress`. On any
    // failure or interruption everything made is removed before the throw.
    virtual void create(const manifests::SandboxRequest& request, std::ostream& progress) = 0;
    // Runs a command in /workspace with the caller's stdin, stdout and stderr;
    // returns the command's exit code (126 when it cannot be run).
    virtual int exec(const ExecRequest& request) = 0;
    virtual void copy(const CopyRequest& request) = 0;
    // Keeps /workspace; returns the template name a spec can start from.
    virtual std::string snapshot(const std::string& id, const std::string& stamp) = 0;
    virtual void destroy(const std::string& id) = 0;
    virtual std::vector<manifests::SandboxRow> list() = 0;
    // Streams the egress log (JSON lines) to `out`.
    virtual void egress_log(const std::string& id, std::ostream& out) = 0;
    // Removes what sandboxes whose supervisor is gone left behind; returns
    // the IDs removed.
    virtual std::vector<std::string> gc() = 0;
};

} // namespace osf::backend
