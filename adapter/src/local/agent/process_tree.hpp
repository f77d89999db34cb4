// The processes below one process, read from /proc (each process's parent in
// /proc/<pid>/stat), and stopping them all. A child subreaper's descendants
// are every process started beneath it that still runs, whatever sessions or
// groups they moved to: orphans are reparented to it.
#pragma once

#include <sys/types.h>
#include <vector>

namespace osf::local::agent {

std::vector<pid_t> descendants_of(pid_t ancestor);
void signal_descendants(pid_t ancestor, int signal);

// SIGKILL to every descendant, again until none is left (a process forked
// between two rounds is found in the next, reparented to `ancestor`), reaping
// the children of the caller as they end.
void kill_descendants(pid_t ancestor);

// The caller's own children.
std::vector<pid_t> children_of(pid_t parent);

} // namespace osf::local::agent
