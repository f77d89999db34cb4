// Copying a sandbox's workspace on the host (snapshot) while the sandbox may
// still be running and changing it: `cp -a` runs under bubblewrap seeing only
// /usr, the workspace and the destination, so a directory the sandbox swaps for
// a symlink mid-copy can lead nowhere on the host. setuid/setgid/sticky bits
// are cleared in the copy.
#pragma once

#include <string>

namespace osf::local {

// Copies the directory `workspace` to `destination` (which must not exist yet;
// its parent must). CommandFailed when the copy fails.
void copy_workspace(const std::string& workspace, const std::string& destination);

} // namespace osf::local
