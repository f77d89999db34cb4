// Bounding `exec`: the command runs with a marker variable unique to this
// exec, so a second exec can find every process it started (even ones that
// left its process group) and stop them: TERM, then KILL after a grace.
// Pure: argument vectors in and out.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace osf::sandbox {

inline constexpr const char* kExecMarkerVariable = "OSF_EXEC_ID";
// Between TERM and KILL: time for a well-behaved command to clean up.
inline constexpr std::chrono::seconds kExecTerminateGrace{5};

// `env OSF_EXEC_ID=<marker> <command>...` run by a `sh -c` that first checks
// the program exists (else "exec: NAME: not found in the sandbox", exit 127):
// what kubectl exec runs.
std::vector<std::string> marked_command(const std::string& marker,
                                        const std::vector<std::string>& command);

// A POSIX sh script run by a second kubectl exec: sends TERM to every process
// whose environment holds OSF_EXEC_ID=<marker>, waits up to `grace` for them
// to go, then sends KILL. Needs sh, tr and grep in the image.
std::vector<std::string> stop_command(const std::string& marker, std::chrono::seconds grace);

} // namespace osf::sandbox
