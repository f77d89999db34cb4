// Bringing a directory out of a sandbox onto the host without trusting the
// sandbox's tar stream: it is unpacked by the host's tar confined by bwrap
// (host read-only, no capabilities) into a private staging directory, then
// only what copy_out_policy keeps is copied into the destination, never
// following a link, never carrying setuid/setgid/sticky bits.
#pragma once

#include "local/protocol/unix_socket.hpp"

#include <functional>
#include <ostream>
#include <string>

namespace osf::local {

struct CopyOutTree {
    std::string staging_parent; // a private directory of the caller's (mode 0700)
    std::string shown;          // the copied name, heading each warning ("d/link")
    std::string destination;    // an existing directory
    bool user_namespace = true; // whether tar's bwrap may get its own user namespace
    // Writes the tar stream to the descriptor it is given; the sandbox side's exit code.
    std::function<int(int)> produce;
    // A signal that arrived (the caller's Ctrl-C), or 0: stops the copy.
    std::function<int()> pending_signal;
};

struct CopyOutOutcome {
    int producer_exit = 0;
    bool complete = true; // false: tar refused entries or some could not be written
};

// Warnings (one line each) go to `warnings`. Throws CommandFailed when no
// staging directory or no tar can be had; commands::Interrupted on a signal.
// The staging directory is removed on every way out.
CopyOutOutcome copy_out_tree(const CopyOutTree& copy, std::ostream& warnings);

// Opens the file `name` in the directory `dir` for writing (created with
// `mode`, truncated), never following a symlink and never hanging on a FIFO
// there. `not_regular`: the name exists and is not a regular file (fd invalid);
// otherwise an invalid fd leaves the reason in errno.
struct OpenedTarget {
    Fd fd;
    bool not_regular = false;
};
OpenedTarget open_target_at(int dir, const std::string& name, mode_t mode);

// Clears setuid, setgid and sticky bits below `dir`, never following a link
// (for copies of a workspace, which the sandbox wrote).
void strip_privilege_bits(const std::string& dir);

} // namespace osf::local
