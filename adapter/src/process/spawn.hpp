// The one way the adapter starts a process, on the host or inside a sandbox:
// fork, then in the child only system calls, in a fixed order, then exec (or a
// function of the caller's). The child gets exactly the descriptors named in
// `fds` (at the numbers named there) and no other: whatever the parent holds,
// inherited or opened by a library, is closed. A step that fails in the child
// is reported to the parent, which throws SpawnError naming it.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <sys/types.h>
#include <vector>

namespace osf::process {

class SpawnError : public std::runtime_error {
public:
    explicit SpawnError(const std::string& what, int error = 0)
        : std::runtime_error(what), error_(error) {}
    // The errno of the step that failed (ENOENT for a program not found), or 0.
    int error() const { return error_; }

private:
    int error_;
};

// Descriptor `parent` of this process becomes descriptor `child` of the new one.
struct Descriptor {
    int child;
    int parent;
};

struct Credentials {
    uid_t uid;
    gid_t gid; // supplementary groups are cleared
};

struct Limit {
    int resource; // RLIMIT_*
    rlim_t soft;
    rlim_t hard;
};

struct SpawnSpec {
    // argv[0] is a path, or a name looked up in the PATH of `env` (or of this
    // process when `env` is unset).
    std::vector<std::string> argv;
    std::optional<std::vector<std::string>> env; // NAME=value; unset: this process's
    std::vector<Descriptor> fds;                 // everything else is closed
    std::string cwd;                             // unchanged when empty
    bool new_session = false;
    bool new_process_group = false;
    bool die_with_parent = false;     // SIGKILL when this process ends
    bool new_session_keyring = false; // an empty anonymous session keyring of its own
    std::optional<Credentials> credentials;
    std::vector<std::string> join_cgroups; // cgroup.procs files the child moves itself into
    std::vector<Limit> limits;
    // In the child after descriptors, cgroups and limits, before credentials
    // (still with the parent's privileges): system calls only (the parent may
    // have threads). Returns 0, or the errno of what failed.
    std::function<int()> prepare;
    // In the child last, just before exec (or before `body`). Same rules.
    std::function<int()> before_exec;
};

// Starts argv[0]; returns its PID once it runs the program.
pid_t spawn(const SpawnSpec& spec);

// Forks a child that sets itself up as `spec` says (argv and env unused) and
// then runs `body`, whose result is its exit status. Only for a parent without
// other threads: the child goes on running this program's code.
pid_t spawn_function(const SpawnSpec& spec, const std::function<int()>& body);

// As spawn_function, but returns as soon as the child exists, without waiting
// for its set-up: for a parent that must never block on a child someone else
// can stop. The sandbox's agent is one: its helpers run as the sandbox's user,
// so any process of the sandbox can SIGSTOP one between fork and `body`, and
// the agent, PID 1, would wait on it for good. A step that fails in the child
// ends it with status 127, unreported.
pid_t start_function(const SpawnSpec& spec, const std::function<int()>& body);

// The first executable `name` in `path_list` (colon-separated), `name` itself
// when it holds a '/', or "".
std::string find_in_path(const std::string& name, const std::string& path_list);

} // namespace osf::process
