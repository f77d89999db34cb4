// The bubblewrap command line of a local sandbox, from what the host holds.
// Pure: the list of mounts is the answer to "what does the sandbox see".
#pragma once

#include "local/launch/sandbox_environment.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace osf::local {

// The agent's end of the supervisor's channel, by number in the agent.
inline constexpr int kAgentControlFd = 3;
// The agent's end of the proxy's handoff channel (the proxy's --handoff-fd):
// it hands each connection it accepts to the proxy there.
inline constexpr int kAgentHandoffFd = 4;

// One entry of a host directory (its top level, or /etc), as listed by the caller.
struct HostEntry {
    enum class Kind { Directory, File, Symlink, Other };
    std::string name;
    Kind kind = Kind::Other;
    std::string link_target;     // for symlinks
    bool world_readable = false; // o+r (and o+x for directories)
};

struct SandboxMounts {
    std::string id;
    // The directory whose entries make the sandbox's root: "/" for the host
    // template, or a root file system directory.
    std::string root_source = "/";
    bool host_template = true;
    std::vector<HostEntry> root_entries; // the top level of root_source
    std::vector<HostEntry> etc_entries;  // the entries of <root_source>/etc
    // Those of etc_masked_directories() that exist as directories there.
    std::vector<std::string> etc_masks_present;
    // Those of proc_masked_files() this kernel's /proc has.
    std::vector<std::string> proc_masks_present;
    // What bwrap binds, as the sandbox's host id can reach it (a root-run
    // supervisor stages them first: mount_staging.hpp).
    std::string workspace;     // bound read-write at /workspace
    std::string cache;         // bound read-write at /cache
    std::string ca_file;       // bound at /etc/osf/egress-ca.crt
    std::string egress_socket; // bound at /run/osf/egress.sock
    std::string ssh_config;    // bound at /etc/ssh/ssh_config (ssh_client_config.hpp)
    std::string agent_binary;  // bound at /run/osf/sandbox-local
    // Set when /etc is staged (staged_binds.hpp): a directory holding /etc's
    // shown entries, the CA and the ssh client config, bound whole at /etc.
    // bwrap rereads the mount table for every bind it makes, so 150 binds of
    // /etc's entries cost it about 50 ms of CPU; one bind of a prepared tree
    // costs one read.
    std::string staged_etc;
    // Any root but the host's: the agent runs with the host's dynamic loader
    // and the directories of the libraries it uses, bound under /run/osf.
    std::string host_loader;
    std::vector<std::string> host_library_dirs;
    int control_fd = kAgentControlFd; // the agent's end of the supervisor's channel
    int handoff_fd = kAgentHandoffFd; // the agent's end of the proxy's handoff channel
    // The IDs the sandbox's processes have inside their user namespace: root,
    // or the spec's `user`. Outside they are the sandbox's host id.
    std::int64_t uid = 0, gid = 0;
    long long tmp_bytes = 0; // sizes of /tmp and /dev/shm
    long long shm_bytes = 0;
    Environment environment;
};

inline constexpr const char* kAgentPath = "/run/osf/sandbox-local";
inline constexpr const char* kEgressSocketPath = "/run/osf/egress.sock";

// Top-level directories the host template shows (read-only): the system's
// programs and libraries. Home directories, /root, /var, /srv, /opt, /mnt,
// /media, /run and /tmp of the host are never shown.
bool host_root_entry_shown(const std::string& name);

// /etc entries never shown: password hashes, sudo rules, SSH host keys and
// client config, DNS (which goes nowhere anyway), stored network and Kerberos
// credentials; and any entry that is not world-readable.
bool etc_entry_shown(const HostEntry& entry);

// Paths below /etc that are hidden by an empty directory even though their
// parent is shown (private keys under a world-readable /etc/ssl, ...).
const std::vector<std::string>& etc_masked_directories();

// Host-wide /proc files a sandbox has no need for (the kernel's command line
// and configuration, every user's key counts, every process's file locks,
// kernel symbols, modules, timers, memory maps, sysrq): each is covered by
// /dev/null, unreadable inside (bound without device access).
const std::vector<std::string>& proc_masked_files();

// How the sandbox runs the product's binary at /run/osf/sandbox-local: by
// itself, or after the host's dynamic loader when the root is not the host's.
std::vector<std::string> agent_command(const SandboxMounts& mounts);

// bwrap's arguments, starting with "bwrap" itself and ending with the agent's
// command line. Everything but /workspace, /cache, /tmp, /dev/shm (and their
// own files' permissions inside) is read-only: the root, /etc, /run and /dev
// are remounted read-only once they are made.
std::vector<std::string> bwrap_arguments(const SandboxMounts& mounts);

} // namespace osf::local
