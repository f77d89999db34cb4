// Waiting for a started process, and its exit status as a shell gives it.
#pragma once

#include <sys/types.h>

namespace osf::process {

// The exit status, or 128 + the signal that ended it.
int exit_code_of(int wait_status);

// Waits (retrying on EINTR) and returns exit_code_of its status.
int wait_exit(pid_t pid);

} // namespace osf::process
