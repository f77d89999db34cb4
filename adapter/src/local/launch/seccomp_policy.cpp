#include "local/launch/seccomp_policy.hpp"

#include <algorithm>
#include <cerrno>
#include <sched.h>

namespace osf::local {

namespace {

constexpr std::uint64_t kInt = 0xffffffffULL;

ArgumentMatch equals(unsigned index, std::int64_t value) {
    return {index, kInt, static_cast<std::uint64_t>(value) & kInt};
}

void refuse_all(std::vector<SyscallRule>& rules, std::initializer_list<const char*> names,
                const std::string& reason) {
    for (const char* name : names)
        rules.push_back({name, {}, EPERM, reason});
}

} // namespace

std::vector<SyscallRule> sandbox_syscall_rules() {
    std::vector<SyscallRule> rules;
    refuse_all(rules,
               {"unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "move_mount",
                "open_tree", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr"},
               "namespaces and mounts: the sandbox's are made once, by bwrap");
    for (const std::uint64_t flag :
         {std::uint64_t(CLONE_NEWNS), std::uint64_t(CLONE_NEWUTS), std::uint64_t(CLONE_NEWIPC),
          std::uint64_t(CLONE_NEWUSER), std::uint64_t(CLONE_NEWPID), std::uint64_t(CLONE_NEWNET),
          std::uint64_t(CLONE_NEWCGROUP)})
        rules.push_back({"clone", {{0, flag, flag}}, EPERM, "clone into new namespaces"});
    rules.push_back({"clone3",
                     {},
                     ENOSYS,
                     "its flags are in memory the filter cannot read; the C library falls back "
                     "to clone"});
    refuse_all(rules, {"keyctl", "add_key", "request_key"},
               "kernel keyrings are not namespaced: the host's keys would be in reach");
    refuse_all(rules, {"bpf", "perf_event_open", "userfaultfd"},
               "kernel attack surface no build needs (eBPF, perf counters, userfaultfd races)");
    refuse_all(rules, {"fanotify_init", "fanotify_mark"},
               "file system event watching beyond inotify: marks on whole mounts and file "
               "systems the host shares with the sandbox (its /usr), no build needs them");
    refuse_all(rules, {"io_uring_setup", "io_uring_enter", "io_uring_register"},
               "io_uring: a second system call path that filters do not see");
    refuse_all(rules,
               {"ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "kcmp",
                "pidfd_getfd"},
               "other processes' memory and descriptors: the agent's and the exec helpers' "
               "among them");
    refuse_all(rules,
               {"kexec_load",
                "kexec_file_load",
                "init_module",
                "finit_module",
                "delete_module",
                "reboot",
                "swapon",
                "swapoff",
                "acct",
                "syslog",
                "iopl",
                "ioperm",
                "quotactl",
                "quotactl_fd",
                "settimeofday",
                "clock_settime",
                "clock_adjtime",
                "adjtimex",
                "vhangup",
                "lookup_dcookie",
                "name_to_handle_at",
                "open_by_handle_at"},
               "the host kernel's and the machine's own settings");

    // Sockets: only the families the sandbox's one way out and local IPC use.
    // AF_VSOCK shares the host's port space (a way to a hypervisor).
    for (int family = 0; family < 64; ++family) {
        if (std::find(std::begin(kAllowedFamilies), std::end(kAllowedFamilies), family) !=
            std::end(kAllowedFamilies))
            continue;
        rules.push_back({"socket", {equals(0, family)}, EPERM, "address family"});
        rules.push_back({"socketpair", {equals(0, family)}, EPERM, "address family"});
    }
    rules.push_back({"socket", {{0, 0, 64, true}}, EPERM, "address family"});
    rules.push_back({"socketpair", {{0, 0, 64, true}}, EPERM, "address family"});
    rules.push_back({"socketpair", {equals(0, 16)}, EPERM, "address family"});
    // netlink other than NETLINK_ROUTE (0): audit, uevents, netfilter...
    rules.push_back({"socket", {equals(0, 16), {2, 0, 1, true}}, EPERM, "netlink family"});

    // Terminals: no typing into a terminal (TIOCSTI, TIOCLINUX) and no taking
    // one over as a controlling terminal (TIOCSCTTY).
    for (const std::int64_t request :
         {0x5412 /*TIOCSTI*/, 0x541C /*TIOCLINUX*/, 0x540E /*TIOCSCTTY*/})
        rules.push_back({"ioctl", {equals(1, request)}, EPERM, "terminal injection and takeover"});

    rules.push_back({"kill", {equals(0, -1)}, EPERM, "every process at once, helpers included"});
    return rules;
}

std::vector<SyscallRule> protection_rules(const ProtectedProcesses& protect) {
    std::vector<SyscallRule> rules;
    // The exec helper and the agent: a command cannot signal them, limit them
    // or open a pidfd for them (their memory is out of reach: ptrace is refused
    // and they are not dumpable).
    for (const int pid : {protect.helper, protect.agent}) {
        for (const std::int64_t target : {std::int64_t(pid), -std::int64_t(pid)})
            rules.push_back(
                {"kill", {equals(0, target)}, EPERM, "the exec's helper and the agent"});
        for (const char* name :
             {"tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open", "prlimit64"})
            rules.push_back({name, {equals(0, pid)}, EPERM, "the exec's helper and the agent"});
    }
    return rules;
}

} // namespace osf::local
