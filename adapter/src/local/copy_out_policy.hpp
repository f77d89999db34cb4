// What a copy out of a sandbox may bring onto the host. The sandbox controls
// every byte of what it sends, so only plain files and directories come out,
// with their rwx bits only; the rest is named on stderr and left behind. Pure.
#pragma once

#include <string>
#include <sys/types.h>

namespace osf::local {

enum class EntryType { regular, directory, symlink, block_device, character_device, fifo, socket };

// The type a stat mode names (S_IFMT); any other type counts as a socket (skipped too).
EntryType entry_type(mode_t mode);

struct CopyOutVerdict {
    bool keep = false;
    std::string warning; // one line for stderr when skipped, else empty
};

// `shown`: the entry as the user knows it (the copied name and the path below
// it, e.g. "d/link"); `link_target`: a symlink's target, as stored.
CopyOutVerdict copy_out_verdict(const std::string& shown, EntryType type,
                                const std::string& link_target = {});

// The permission bits a copied file or directory gets: rwx for user, group
// and others; never setuid, setgid or sticky.
mode_t copied_mode(mode_t mode);

// A name the sandbox chose, safe to print on a terminal: control bytes and
// backslashes written as \xNN.
std::string printable_name(const std::string& name);

} // namespace osf::local
