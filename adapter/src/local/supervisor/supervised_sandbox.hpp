// What the supervisor's parts (starting the proxy, starting the sandbox,
// serving) share about the one sandbox it holds, and the helpers they share.
#pragma once

#include "local/host/cgroup_placement.hpp"
#include "local/launch/launch_plan.hpp"
#include "local/state/local_layout.hpp"
#include "local/state/sandbox_store.hpp"
#include "process/fd.hpp"
#include "process/spawn.hpp"
#include "sandbox/sandbox_request.hpp"

#include <chrono>
#include <stdexcept>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace osf::local::supervisor {

using Clock = std::chrono::steady_clock;
using process::Fd;

// A step of the start failed: create is told its message.
class StartFailed : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct SupervisedSandbox {
    std::string root;
    SandboxPaths paths;
    sandbox::SandboxRequest request;
    SandboxMeta meta;
    LaunchPlan plan;
    CgroupPlacement placement;
    Clock::time_point deadline; // of the start
    Fd signals;                 // SIGTERM, SIGINT, SIGHUP, SIGCHLD, blocked
    Fd agent;                   // the supervisor's end of the agent's channel
    pid_t proxy_pid = -1;
    pid_t sandbox_pid = -1;

    std::string id() const;
    // Root-run: the sandbox runs as a host id of its own.
    bool own_host_id() const { return meta.host_id != 0; }
};

// A file's content, empty when it cannot be read; its last line.
std::string read_file(const std::string& path);
std::string last_line(const std::string& path);
// Written whole or not at all; StartFailed when it cannot be.
void write_file(const std::string& path, const std::string& text, mode_t mode);

// A connected SOCK_SEQPACKET pair, close-on-exec (the agent's channels);
// StartFailed when it cannot be made.
std::pair<Fd, Fd> seqpacket_pair();

// A SIGTERM or SIGINT while the sandbox starts (create gave up): StartFailed.
void check_stop_signal(const SupervisedSandbox& sandbox);

// A spawn with no input and its output appended to `path`; the descriptors
// go to `keep_open`, to be closed once the program started.
process::SpawnSpec output_to(const std::string& path, std::vector<Fd>& keep_open);

} // namespace osf::local::supervisor
