// Removing a directory tree the sandbox wrote (destroy, gc, an expired
// sandbox, a failed snapshot, a copy's staging): it may be any depth (a chain
// of 25,000 directories), hold directories made unreadable, and never lead
// anywhere else. The walk holds two descriptors whatever the depth: it goes
// down by openat(O_NOFOLLOW) and back up by "..", checking that ".." is the
// directory it came from (device and inode kept in memory, not descriptors).
#pragma once

#include <string>

namespace osf::local {

// Removes `dir` and everything below it, never following a symlink; nothing
// when it does not exist. std::runtime_error naming what could not be removed.
void remove_tree_at(const std::string& dir);

} // namespace osf::local
