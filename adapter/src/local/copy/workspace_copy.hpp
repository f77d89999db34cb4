// Copying a sandbox's workspace on the host (snapshot) while the sandbox may
// still be running and changing it. The CLI walks the tree itself, with
// descriptors: each name is opened below its directory's descriptor with
// O_NOFOLLOW and what it is is decided on the opened descriptor, so a
// directory the sandbox swaps for a symlink mid-copy (to /proc/self, to /) is
// copied as a symlink and never followed, and a file swapped for a FIFO or a
// device is skipped. No other program runs: no environment of the caller's is
// anywhere to be read. Symlinks stay symlinks; FIFOs, sockets and devices are
// skipped with a warning; setuid, setgid and sticky bits are dropped; what is
// written is bounded.
#pragma once

#include <ostream>
#include <string>

namespace osf::local {

// Directories deeper than this below the workspace are refused (the walk
// holds two descriptors per level).
inline constexpr int kWorkspaceCopyMaxDepth = 1000;

// Copies the directory `workspace` to `destination` (which must not exist yet;
// its parent must), writing at most `max_bytes` of file contents. As root the
// owners are kept. One warning line per skipped entry on `warnings`.
// CommandFailed past the bound or the depth, or when the copy cannot be written.
void copy_workspace(const std::string& workspace, const std::string& destination,
                    unsigned long long max_bytes, std::ostream& warnings);

} // namespace osf::local
