#include "local/launch/bwrap_command.hpp"

#include "local/launch/ssh_client_config.hpp"
#include "sandbox/sandbox_paths.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace osf::local {

namespace {

constexpr std::array<std::string_view, 7> kHostRootEntries = {"usr",   "bin",   "sbin",  "lib",
                                                              "lib32", "lib64", "libx32"};

// Entries of a root file system directory that the sandbox gets fresh instead.
constexpr std::array<std::string_view, 8> kReplacedRootEntries = {
    "proc", "dev", "sys", "tmp", "run", "workspace", "etc", "cache"};

constexpr std::array<std::string_view, 15> kHiddenEtcEntries = {"shadow",
                                                                "shadow-",
                                                                "gshadow",
                                                                "gshadow-",
                                                                "sudoers",
                                                                "sudoers.d",
                                                                "ssh",
                                                                "resolv.conf",
                                                                "krb5.keytab",
                                                                "credstore",
                                                                "credstore.encrypted",
                                                                "NetworkManager",
                                                                "wpa_supplicant",
                                                                "openvpn",
                                                                "wireguard"};

template <std::size_t N>
bool contains(const std::array<std::string_view, N>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

void add(std::vector<std::string>& args, std::initializer_list<std::string> more) {
    args.insert(args.end(), more);
}

// Binds (or recreates as a symlink) one entry of `source_dir` at `target_dir`.
void show_entry(std::vector<std::string>& args, const std::string& source_dir,
                const std::string& target_dir, const HostEntry& entry) {
    const std::string target = target_dir + "/" + entry.name;
    switch (entry.kind) {
    case HostEntry::Kind::Symlink:
        add(args, {"--symlink", entry.link_target, target});
        break;
    case HostEntry::Kind::Directory:
    case HostEntry::Kind::File:
        add(args, {"--ro-bind", source_dir + "/" + entry.name, target});
        break;
    case HostEntry::Kind::Other: // sockets, devices, fifos: never
        break;
    }
}

// A mask or /run holds nothing the sandbox may write: a tmpfs this small
// (and read-only) is all it needs.
constexpr long long kMaskBytes = 1024 * 1024;

std::string join(const std::string& dir, const std::string& name) {
    return dir == "/" ? "/" + name : dir + "/" + name;
}

constexpr const char* kHostLoaderPath = "/run/osf/ld.so";

std::string host_library_dir(std::size_t index) {
    return "/run/osf/lib/" + std::to_string(index);
}

// /etc, with its masks, the CA and the ssh client configuration; `read_only`
// gains the masks. Made after every other mount: bwrap rereads the whole
// mount table for each bind it makes, and /etc adds one mount per entry.
void add_etc(std::vector<std::string>& args, const SandboxMounts& mounts,
             const std::string& root_dir, std::vector<std::string>& read_only) {
    if (mounts.staged_etc.empty()) {
        add(args, {"--dir", "/etc"});
        const std::string etc_dir = join(root_dir, "etc");
        for (const auto& entry : mounts.etc_entries)
            if (etc_entry_shown(entry)) show_entry(args, etc_dir, "/etc", entry);
    } else {
        add(args, {"--ro-bind", mounts.staged_etc, "/etc"}); // its files in place already
    }
    for (const auto& masked : mounts.etc_masks_present) {
        const std::string name = masked.substr(std::string_view("/etc/").size());
        const auto slash = name.find('/');
        const std::string top = name.substr(0, slash);
        const bool parent_shown = std::any_of(
            mounts.etc_entries.begin(), mounts.etc_entries.end(), [&](const HostEntry& e) {
                return e.name == top && e.kind == HostEntry::Kind::Directory && etc_entry_shown(e);
            });
        // Empty, small and read-only, as everything under / but the
        // documented writable places (kWritableMounts).
        if (parent_shown) {
            add(args, {"--size", std::to_string(kMaskBytes), "--perms", "0755", "--tmpfs", masked});
            read_only.push_back(masked);
        }
    }
    if (mounts.staged_etc.empty()) {
        add(args, {"--dir", sandbox::kCaDir, "--ro-bind", mounts.ca_file, sandbox::kCaPath});
        // Over an /etc/ssh that is otherwise absent (never the host's), which
        // every user inside can read, as a staged one.
        if (!mounts.ssh_config.empty())
            add(args, {"--perms", "0755", "--dir", "/etc/ssh", "--ro-bind", mounts.ssh_config,
                       kSshConfigPath});
    }
}

} // namespace

std::vector<std::string> agent_command(const SandboxMounts& mounts) {
    if (mounts.host_template || mounts.host_loader.empty()) return {kAgentPath};
    // The root's own libraries may not fit the agent (or be missing): the
    // host's run it; the commands it starts use the root's.
    std::string library_path;
    for (std::size_t i = 0; i < mounts.host_library_dirs.size(); ++i)
        library_path += (i ? ":" : "") + host_library_dir(i);
    return {kHostLoaderPath, "--library-path", library_path, kAgentPath};
}

bool host_root_entry_shown(const std::string& name) {
    return contains(kHostRootEntries, name);
}

bool etc_entry_shown(const HostEntry& entry) {
    if (contains(kHiddenEtcEntries, entry.name)) return false;
    return entry.kind == HostEntry::Kind::Symlink || entry.world_readable;
}

const std::vector<std::string>& etc_masked_directories() {
    static const std::vector<std::string> masked = {"/etc/ssl/private"};
    return masked;
}

const std::vector<std::string>& proc_masked_files() {
    static const std::vector<std::string> masked = {
        "/proc/cmdline",     "/proc/config.gz",   "/proc/key-users",    "/proc/keys",
        "/proc/locks",       "/proc/kallsyms",    "/proc/modules",      "/proc/timer_list",
        "/proc/sched_debug", "/proc/vmallocinfo", "/proc/iomem",        "/proc/ioports",
        "/proc/kcore",       "/proc/kmsg",        "/proc/sysrq-trigger"};
    return masked;
}

std::vector<std::string> bwrap_arguments(const SandboxMounts& mounts) {
    std::vector<std::string> args = {
        "bwrap", "--die-with-parent", "--new-session", "--unshare-user", "--unshare-ipc",
        "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
        // No bwrap process inside: the agent (not dumpable) is
        // PID 1, so no process there is outside the system call
        // filter and open to the commands' /proc/<pid>/mem.
        "--as-pid-1", "--disable-userns", "--uid", std::to_string(mounts.uid), "--gid",
        std::to_string(mounts.gid), "--cap-drop", "ALL", "--hostname", "osf-sandbox-" + mounts.id,
        "--clearenv"};
    for (const auto& [name, value] : mounts.environment)
        add(args, {"--setenv", name, value});

    const std::string root_dir = mounts.root_source.empty() ? "/" : mounts.root_source;
    for (const auto& entry : mounts.root_entries) {
        const bool shown = mounts.host_template ? host_root_entry_shown(entry.name)
                                                : !contains(kReplacedRootEntries, entry.name);
        if (!shown) continue;
        if (entry.kind == HostEntry::Kind::Symlink)
            add(args, {"--symlink", entry.link_target, "/" + entry.name});
        else if (entry.kind == HostEntry::Kind::Directory || entry.kind == HostEntry::Kind::File)
            add(args, {"--ro-bind", join(root_dir, entry.name), "/" + entry.name});
    }

    // Mounts made writable by their kind (tmpfs) that must not be: remounted
    // read-only last, once what they hold is in place.
    std::vector<std::string> read_only = {"/run", "/dev"};

    add(args, {"--proc",
               "/proc",
               "--dev",
               "/dev",
               "--size",
               std::to_string(mounts.shm_bytes),
               "--tmpfs",
               "/dev/shm",
               "--size",
               std::to_string(mounts.tmp_bytes),
               "--tmpfs",
               "/tmp",
               "--size",
               std::to_string(kMaskBytes),
               "--tmpfs",
               "/run",
               "--dir",
               "/run/osf",
               "--ro-bind",
               mounts.egress_socket,
               kEgressSocketPath,
               "--ro-bind",
               mounts.agent_binary,
               kAgentPath});
    for (const auto& masked : mounts.proc_masks_present)
        add(args, {"--ro-bind", "/dev/null", masked});
    add(args, {"--bind", mounts.cache, sandbox::kCacheDir});
    add(args,
        {"--bind", mounts.workspace, sandbox::kWorkspaceDir, "--chdir", sandbox::kWorkspaceDir});
    if (!mounts.host_template && !mounts.host_loader.empty()) {
        add(args, {"--ro-bind", mounts.host_loader, kHostLoaderPath});
        for (std::size_t i = 0; i < mounts.host_library_dirs.size(); ++i)
            add(args, {"--ro-bind", mounts.host_library_dirs[i], host_library_dir(i)});
    }
    add_etc(args, mounts, root_dir, read_only);
    for (const auto& mount : read_only)
        add(args, {"--remount-ro", mount});
    add(args, {"--remount-ro", "/", "--"});
    const auto command = agent_command(mounts);
    args.insert(args.end(), command.begin(), command.end());
    add(args, {"__agent", std::to_string(mounts.control_fd), std::to_string(mounts.handoff_fd)});
    return args;
}

} // namespace osf::local
