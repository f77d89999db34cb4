// The state directory's sandboxes and snapshots: their metadata files,
// whether a sandbox's supervisor still runs (it holds a lock), and removal.
#pragma once

#include "local/state/local_layout.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace osf::local {

// sandbox.json
struct SandboxMeta {
    std::string id;
    std::string template_name;     // the spec's `template`, for list
    std::string base;              // the template beneath a snapshot: host, a directory or an image
    std::string root;              // "/" (the host template) or a root file system directory
    std::string buildah_container; // the working container whose mount is `root` (images)
    long long created = 0;         // seconds since the epoch
    long long expires = 0;         // seconds since the epoch; 0: never (older state)
    long long suspended_at = 0;    // seconds since the epoch while suspended; else 0
    // The host uid and gid the sandbox runs as (host_ids.hpp); 0: the caller's own.
    unsigned host_id = 0;
    // The size of the file system /workspace is (storage, persistence); 0: unbounded.
    long long workspace_bytes = 0;
    // The user's labels (spec `labels` and create --label); list -l selects by them.
    std::map<std::string, std::string> labels;
};

void write_meta(const std::string& path, const SandboxMeta& meta);
std::optional<SandboxMeta> read_meta(const std::string& path);

// snapshot.json: the template a sandbox started from the snapshot runs on.
struct SnapshotMeta {
    std::string of;   // the sandbox's ID
    std::string base; // host, a root file system directory or an image
};
void write_snapshot_meta(const std::string& path, const SnapshotMeta& meta);
std::optional<SnapshotMeta> read_snapshot_meta(const std::string& path);

// True while a process holds the sandbox's lock (its supervisor runs).
bool supervisor_running(const SandboxPaths& paths);

// The IDs with a directory below <root>/sandboxes (valid IDs only).
std::vector<std::string> stored_sandbox_ids(const std::string& root);

// SIGTERM to the supervisor, then waits (bounded) for its lock; SIGKILL when
// it does not let go. Then kills any process whose command line still names
// the sandbox's directory.
void stop_supervisor(const SandboxPaths& paths);
void kill_leftover_processes(const SandboxPaths& paths);

// Removes the directory tree, making read-only directories writable first.
void remove_tree(const std::string& dir);

// Creates the directory and its parents; a directory it creates gets mode
// 0700. Throws on failure.
void make_private_dirs(const std::string& dir);

} // namespace osf::local
