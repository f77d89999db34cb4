// The system calls a command in a local sandbox is refused, each with its
// reason (adapter/README.md lists them). Everything else is allowed, as in
// the container runtimes' default profiles; a refused call fails with EPERM
// (clone3 with ENOSYS, so that the C library falls back to clone, whose flags
// the filter can read). Pure: the filter is built from this list by
// seccomp_filter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace osf::local {

// One comparison of a call's argument: (argument & mask) == value. Masks are
// 32 bits for int arguments, so that bits above them cannot dodge a rule.
struct ArgumentMatch {
    unsigned index;
    std::uint64_t mask;
    std::uint64_t value;
    bool at_least = false; // argument >= value instead (mask unused)
};

struct SyscallRule {
    std::string name;
    std::vector<ArgumentMatch> when; // all must hold; empty: always
    int error;                       // errno returned
    std::string reason;
};

// Processes a command must not signal, limit or open a pidfd for: the exec's
// own helper (it stops whatever the command leaves behind) and the agent (it
// starts every exec). PIDs as the sandbox's PID namespace numbers them.
struct ProtectedProcesses {
    int helper;
    int agent;
};

// The same for every command of every sandbox (built once, by the agent).
std::vector<SyscallRule> sandbox_syscall_rules();
// Those that name the exec's own helper and the agent (built per exec).
std::vector<SyscallRule> protection_rules(const ProtectedProcesses& protect);

// Address families a socket may have: Unix, IPv4, IPv6; netlink only for routes
// (NETLINK_ROUTE: addresses and links, what `ip` and getifaddrs read).
inline constexpr int kAllowedFamilies[] = {1 /*AF_UNIX*/, 2 /*AF_INET*/, 10 /*AF_INET6*/,
                                           16 /*AF_NETLINK*/};

} // namespace osf::local
