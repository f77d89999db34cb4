// What a copy out of a sandbox may bring onto the host. The sandbox controls
// every byte of what it sends, so only plain files and directories come out,
// with their rwx bits only; the rest is named on stderr and left behind. Pure.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <sys/types.h>
#include <variant>

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

// How much a copy out of a sandbox (or a snapshot of it) may write on the
// host, and how long each of its steps inside may take: the sandbox decides
// what it sends, so both are bounded.
struct CopyBounds {
    unsigned long long bytes = 0;
    std::chrono::seconds timeout{0};
};

// Without storage and without OSF_SANDBOX_COPY_LIMIT.
inline constexpr unsigned long long kCopyCeilingBytes = 8ULL << 30;
inline constexpr std::chrono::seconds kCopyDefaultTimeout{3600};

// `storage`: the bytes /workspace is bounded to (0: none); `limit` and
// `timeout`: OSF_SANDBOX_COPY_LIMIT (bytes, or with Ki, Mi, Gi, Ti) and
// OSF_SANDBOX_COPY_TIMEOUT (seconds) when set. The limit is the variable's,
// else the storage, else kCopyCeilingBytes. A string: the one-line error for
// a value that is not one (exit 2).
std::variant<CopyBounds, std::string> copy_bounds(long long storage,
                                                  const std::optional<std::string>& limit,
                                                  const std::optional<std::string>& timeout);

// "64 MiB", "1.5 GiB", "512 bytes": a bound in an error message.
std::string shown_bytes(unsigned long long bytes);

} // namespace osf::local
