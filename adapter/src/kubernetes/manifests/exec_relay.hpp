// `exec` without a terminal returns when the command does, not when every
// process holding its output has closed it (kubectl ends only then). The
// command runs under a small POSIX sh script whose stdout and stderr are
// FIFOs the script relays to kubectl's streams; once the command itself has
// exited (its status is the script's exit code, which kubectl reports), the
// script waits for the relays, and if processes the command left behind still
// hold a FIFO after kExecOutputDrain it hands the FIFOs to silent readers (the
// leftovers keep running, their later output is dropped) and stops relaying,
// so kubectl's streams close. Pure: argument vectors in and out.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace osf::kubernetes::manifests {

// After the command exits: how long its leftovers' output is still relayed.
inline constexpr std::chrono::seconds kExecOutputDrain{1};

// `sh -c <start> osf-exec <relay script> <env OSF_EXEC_ID=<marker> <command>...
// quoted>`: what kubectl exec runs without a terminal. The scripts need
// mktemp, mkfifo, cat and a writable temporary directory; without them the
// command runs directly (exec then ends when its output is closed, as
// kubectl's does).
std::vector<std::string> relayed_command(const std::string& marker,
                                         const std::vector<std::string>& command);

// The words as one POSIX sh word list: each in single quotes ('\'' inside).
std::string shell_quoted(const std::vector<std::string>& words);

} // namespace osf::kubernetes::manifests
