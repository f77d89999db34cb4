// A root-run sandbox's bwrap runs as the sandbox's own host id, which can
// reach neither the state directory (root's, 0700) nor an image's mount below
// the container storage. So its process first makes a mount namespace of its
// own (still root), mounts a tmpfs at /run and binds there what bwrap needs;
// then it switches to the host id and execs bwrap, which binds from there.
// The binds exist only in that namespace and end with it; host permissions
// stay as they are. An ordinary user's bwrap needs none of this.
#pragma once

#include "local/launch/staged_binds.hpp"

#include <vector>

namespace osf::local {

// In the child, after fork and before the switch to the host id: system
// calls only. 0, or the errno of the step that failed.
int stage_binds(const std::vector<StagedBind>& binds);

} // namespace osf::local
