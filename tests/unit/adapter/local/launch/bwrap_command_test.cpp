#include "commands/command_errors.hpp"
#include "local/host/user_namespaces.hpp"
#include "local/launch/bwrap_command.hpp"
#include "local/launch/cgroup_limits.hpp"
#include "local/launch/template_choice.hpp"
#include "local/state/local_layout.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <sys/wait.h>

using namespace osf::local;

namespace {

bool has_sequence(const std::vector<std::string>& args, const std::vector<std::string>& sequence) {
    return std::search(args.begin(), args.end(), sequence.begin(), sequence.end()) != args.end();
}

HostEntry dir(const std::string& name, bool readable = true) {
    return {name, HostEntry::Kind::Directory, "", readable};
}

HostEntry file(const std::string& name, bool readable = true) {
    return {name, HostEntry::Kind::File, "", readable};
}

HostEntry symlink_entry(const std::string& name, const std::string& target) {
    return {name, HostEntry::Kind::Symlink, target, false};
}

} // namespace

TEST_CASE("bwrap: every namespace, no capabilities, only the system directories") {
    SandboxMounts mounts;
    mounts.id = "0123456789ab";
    mounts.root_entries = {dir("usr"),     symlink_entry("bin", "usr/bin"),
                           dir("home"),    dir("root", false),
                           dir("var"),     dir("opt"),
                           dir("tmp"),     dir("lib"),
                           file("vmlinuz")};
    mounts.etc_entries = {file("passwd"),
                          file("shadow", false),
                          dir("ssh"),
                          dir("ssl"),
                          file("resolv.conf"),
                          file("secret.conf", false),
                          symlink_entry("mtab", "../proc/self/mounts")};
    mounts.etc_masks_present = {"/etc/ssl/private"};
    mounts.proc_masks_present = {"/proc/cmdline", "/proc/locks"};
    mounts.workspace = "/state/ws";
    mounts.ca_file = "/state/proxy/ca.crt";
    mounts.egress_socket = "/state/run/egress.sock";
    mounts.ssh_config = "/state/run/ssh_config";
    mounts.agent_binary = "/usr/bin/sandbox-local";
    mounts.control_fd = 3;
    mounts.environment = {{"A", "1"}};
    const auto args = bwrap_arguments(mounts);
    CHECK(args.front() == "bwrap");
    for (const char* flag :
         {"--die-with-parent", "--new-session", "--unshare-user", "--unshare-ipc", "--unshare-pid",
          "--as-pid-1", "--unshare-net", "--unshare-uts", "--disable-userns", "--clearenv"})
        CHECK(std::find(args.begin(), args.end(), flag) != args.end());
    CHECK(has_sequence(args, {"--cap-drop", "ALL"}));
    CHECK(has_sequence(args, {"--hostname", "osf-sandbox-0123456789ab"}));
    CHECK(has_sequence(args, {"--setenv", "A", "1"}));
    CHECK(has_sequence(args, {"--ro-bind", "/usr", "/usr"}));
    CHECK(has_sequence(args, {"--symlink", "usr/bin", "/bin"}));
    CHECK(has_sequence(args, {"--ro-bind", "/lib", "/lib"}));
    for (const char* hidden : {"/home", "/root", "/var", "/opt", "/vmlinuz", "/etc/shadow",
                               "/etc/resolv.conf", "/etc/secret.conf"})
        CHECK(std::find(args.begin(), args.end(), hidden) == args.end());
    // /etc/ssh is never the host's: a directory of bwrap's holding only ours.
    CHECK_FALSE(has_sequence(args, {"--ro-bind", "/etc/ssh", "/etc/ssh"}));
    CHECK(has_sequence(args, {"--perms", "0755", "--dir", "/etc/ssh", "--ro-bind",
                              "/state/run/ssh_config", "/etc/ssh/ssh_config"}));
    CHECK(has_sequence(args, {"--ro-bind", "/etc/passwd", "/etc/passwd"}));
    // A mask is small and read-only: nothing under / but the documented
    // writable places can be written (issue 42: /etc/ssl/private was a
    // writable tmpfs of half the RAM).
    CHECK(has_sequence(args,
                       {"--size", "1048576", "--perms", "0755", "--tmpfs", "/etc/ssl/private"}));
    CHECK(has_sequence(args, {"--size", "1048576", "--tmpfs", "/run"}));
    CHECK(has_sequence(args, {"--symlink", "../proc/self/mounts", "/etc/mtab"}));
    CHECK(has_sequence(args, {"--ro-bind", "/state/proxy/ca.crt", "/etc/osf/egress-ca.crt"}));
    CHECK(has_sequence(args, {"--size", "0", "--tmpfs", "/tmp"}));
    CHECK(has_sequence(args, {"--ro-bind", "/state/run/egress.sock", "/run/osf/egress.sock"}));
    // The product's ssh client configuration, never the host's /etc/ssh.
    CHECK(has_sequence(args, {"--ro-bind", "/state/run/ssh_config", "/etc/ssh/ssh_config"}));
    CHECK(has_sequence(args, {"--bind", "/state/ws", "/workspace", "--chdir", "/workspace"}));
    // Root inside by default; read-only everywhere but the binds and tmpfs
    // that are the sandbox's own, remounted once everything else is made.
    CHECK(has_sequence(args, {"--uid", "0", "--gid", "0"}));
    CHECK(has_sequence(args, {"--remount-ro", "/run", "--remount-ro", "/dev", "--remount-ro",
                              "/etc/ssl/private", "--remount-ro", "/", "--",
                              "/run/osf/sandbox-local", "__agent", "3"}));
    // Host-wide /proc files: covered after /proc is mounted.
    CHECK(has_sequence(args, {"--ro-bind", "/dev/null", "/proc/cmdline", "--ro-bind", "/dev/null",
                              "/proc/locks"}));
    CHECK(std::find(args.begin(), args.end(), "/proc/cmdline") >
          std::find(args.begin(), args.end(), "--proc"));
    for (const char* name : {"/proc/cmdline", "/proc/key-users", "/proc/locks", "/proc/config.gz"})
        CHECK(std::find(proc_masked_files().begin(), proc_masked_files().end(), name) !=
              proc_masked_files().end());
    // Every tmpfs is either a documented writable place or remounted read-only.
    for (std::size_t i = 0; i + 1 < args.size(); ++i) {
        if (args[i] != "--tmpfs") continue;
        const std::string& target = args[i + 1];
        INFO(target);
        CHECK((target == "/tmp" || target == "/dev/shm" ||
               has_sequence(args, {"--remount-ro", target})));
    }
    // The agent's two channels: the supervisor's, then the proxy's handoff.
    REQUIRE(args.size() > 3);
    CHECK(std::vector<std::string>(args.end() - 3, args.end()) ==
          std::vector<std::string>{"__agent", "3", "4"});
}

TEST_CASE("bwrap: /tmp and /dev/shm are sized, /cache is bound") {
    SandboxMounts mounts;
    mounts.id = "0123456789ab";
    mounts.tmp_bytes = 256LL << 20;
    mounts.shm_bytes = 64LL << 20;
    mounts.cache = "/state/caches/npm";
    const auto args = bwrap_arguments(mounts);
    CHECK(has_sequence(args, {"--size", "268435456", "--tmpfs", "/tmp"}));
    CHECK(has_sequence(args, {"--size", "67108864", "--tmpfs", "/dev/shm"}));
    CHECK(has_sequence(args, {"--bind", "/state/caches/npm", "/cache"}));
    osf::Spec spec;
    CHECK(tmpfs_sizes(spec).tmp == 1LL << 30);
    CHECK(tmpfs_sizes(spec).shm == 64LL << 20);
    spec.memory = "256Mi";
    CHECK(tmpfs_sizes(spec).tmp == 256LL << 20);
    spec.memory = "32Mi";
    CHECK(tmpfs_sizes(spec).shm == 32LL << 20);
    // tmpSize sets /tmp alone.
    spec.tmp_size = "512Mi";
    CHECK(tmpfs_sizes(spec).tmp == 512LL << 20);
    CHECK(tmpfs_sizes(spec).shm == 32LL << 20);
}

TEST_CASE("bwrap: a root file system directory shows all but what the sandbox gets fresh") {
    SandboxMounts mounts;
    mounts.id = "0123456789ab";
    mounts.root_source = "/srv/rootfs";
    mounts.host_template = false;
    mounts.root_entries = {dir("usr"),  dir("var"), dir("home"),
                           dir("proc"), dir("tmp"), dir("etc")};
    mounts.etc_entries = {file("os-release")};
    const auto args = bwrap_arguments(mounts);
    CHECK(has_sequence(args, {"--ro-bind", "/srv/rootfs/usr", "/usr"}));
    CHECK(has_sequence(args, {"--ro-bind", "/srv/rootfs/var", "/var"}));
    CHECK(has_sequence(args, {"--ro-bind", "/srv/rootfs/home", "/home"}));
    CHECK(has_sequence(args, {"--ro-bind", "/srv/rootfs/etc/os-release", "/etc/os-release"}));
    CHECK_FALSE(has_sequence(args, {"--ro-bind", "/srv/rootfs/proc", "/proc"}));
    CHECK_FALSE(has_sequence(args, {"--ro-bind", "/srv/rootfs/tmp", "/tmp"}));
}

TEST_CASE("bwrap: the spec's user becomes the IDs inside the user namespace") {
    SandboxMounts mounts;
    mounts.id = "0123456789ab";
    mounts.uid = 1000;
    mounts.gid = 1001;
    CHECK(has_sequence(bwrap_arguments(mounts), {"--uid", "1000", "--gid", "1001"}));
}

TEST_CASE("bwrap: what create says when bwrap cannot start") {
    CHECK(describe_bwrap_failure("bwrap: Failed to make / slave: Invalid argument")
              .find("mount --bind DIR DIR") != std::string::npos);
    // Debian 11's bubblewrap 0.4 on the PATH: name the version needed, not only bwrap's line.
    CHECK(describe_bwrap_failure("bwrap: Unknown option --disable-userns")
              .find("needs bubblewrap 0.8 or newer") != std::string::npos);
}

TEST_CASE("bwrap: in a foreign root the agent runs with the host's loader and libraries") {
    SandboxMounts mounts;
    mounts.id = "0123456789ab";
    mounts.root_source = "/srv/rootfs";
    mounts.host_template = false;
    mounts.host_loader = "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2";
    mounts.host_library_dirs = {"/usr/lib/x86_64-linux-gnu", "/opt/lib"};
    mounts.control_fd = 4;
    mounts.handoff_fd = 5;
    const auto args = bwrap_arguments(mounts);
    CHECK(has_sequence(args, {"--ro-bind", "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
                              "/run/osf/ld.so", "--ro-bind", "/usr/lib/x86_64-linux-gnu",
                              "/run/osf/lib/0", "--ro-bind", "/opt/lib", "/run/osf/lib/1"}));
    // Then /etc (made last: it adds a mount per entry), then the read-only remounts.
    CHECK(has_sequence(args,
                       {"--remount-ro", "/run", "--remount-ro", "/dev", "--remount-ro", "/", "--",
                        "/run/osf/ld.so", "--library-path", "/run/osf/lib/0:/run/osf/lib/1",
                        "/run/osf/sandbox-local", "__agent", "4", "5"}));
    // ssh's ProxyCommand runs the product's binary the same way.
    CHECK(agent_command(mounts) == std::vector<std::string>{"/run/osf/ld.so", "--library-path",
                                                            "/run/osf/lib/0:/run/osf/lib/1",
                                                            "/run/osf/sandbox-local"});
    mounts.host_template = true;
    CHECK(agent_command(mounts) == std::vector<std::string>{"/run/osf/sandbox-local"});
}

TEST_CASE("bwrap: a staged /etc is one read-only bind with the CA and ssh config in it") {
    SandboxMounts mounts;
    mounts.id = "0123456789ab";
    mounts.etc_entries = {file("passwd"), dir("ssl")};
    mounts.etc_masks_present = {"/etc/ssl/private"};
    mounts.ca_file = "/run/osf-stage/egress-ca.crt";
    mounts.ssh_config = "/run/osf-stage/ssh_config";
    mounts.staged_etc = "/run/osf-stage/etc";
    const auto args = bwrap_arguments(mounts);
    CHECK(has_sequence(args, {"--ro-bind", "/run/osf-stage/etc", "/etc"}));
    for (std::size_t i = 0; i + 2 < args.size(); ++i)
        if (args[i] == "--ro-bind" || args[i] == "--symlink" || args[i] == "--dir")
            CHECK((args[i + 2].rfind("/etc/", 0) != 0 || args[i + 2] == "/etc/ssl/private"));
    // /etc comes after every other mount, before the read-only remounts.
    const auto etc_at = std::find(args.begin(), args.end(), "/run/osf-stage/etc");
    CHECK(std::find(etc_at, args.end(), "/workspace") == args.end());
    CHECK(std::find(etc_at, args.end(), "/proc") == args.end());
    // The mask still covers what the bound /etc/ssl holds.
    CHECK(has_sequence(args, {"--tmpfs", "/etc/ssl/private"}));
    CHECK(has_sequence(args, {"--remount-ro", "/etc/ssl/private"}));
}
