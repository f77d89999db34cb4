// The system call rules of a local sandbox's commands: every class the issue
// names is refused, each rule has a reason, int arguments are compared on
// their 32 bits, the protected processes are the ones given.
#include "local/launch/seccomp_policy.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>

using namespace osf::local;

namespace {

const std::vector<SyscallRule>& rules() {
    static const auto all = [] {
        auto rules = sandbox_syscall_rules();
        const auto protection = protection_rules({7, 2});
        rules.insert(rules.end(), protection.begin(), protection.end());
        return rules;
    }();
    return all;
}

bool refused_always(const std::string& name) {
    return std::any_of(rules().begin(), rules().end(), [&](const SyscallRule& r) {
        return r.name == name && r.when.empty() && r.error == EPERM;
    });
}

bool refused_when(const std::string& name, unsigned index, std::uint64_t value) {
    return std::any_of(rules().begin(), rules().end(), [&](const SyscallRule& r) {
        return r.name == name && r.when.size() == 1 && r.when[0].index == index &&
               !r.when[0].at_least && r.when[0].mask == 0xffffffffULL &&
               r.when[0].value == (value & 0xffffffffULL);
    });
}

} // namespace

TEST_CASE("seccomp: the classes refused outright") {
    for (const char* name : {"unshare",
                             "setns",
                             "mount",
                             "pivot_root",
                             "open_tree",
                             "fsopen",
                             "keyctl",
                             "add_key",
                             "request_key",
                             "bpf",
                             "userfaultfd",
                             "fanotify_init",
                             "fanotify_mark",
                             "io_uring_setup",
                             "io_uring_enter",
                             "ptrace",
                             "process_vm_readv",
                             "process_vm_writev",
                             "perf_event_open",
                             "kexec_load",
                             "init_module",
                             "open_by_handle_at"})
        CHECK(refused_always(name));
    for (const auto& rule : rules())
        CHECK_FALSE(rule.reason.empty());
}

TEST_CASE("seccomp: clone into namespaces refused, clone3 answered ENOSYS") {
    CHECK(std::count_if(rules().begin(), rules().end(),
                        [](const SyscallRule& r) { return r.name == "clone"; }) == 7);
    const auto clone3 = std::find_if(rules().begin(), rules().end(),
                                     [](const SyscallRule& r) { return r.name == "clone3"; });
    REQUIRE(clone3 != rules().end());
    CHECK(clone3->error == ENOSYS);
}

TEST_CASE("seccomp: sockets of Unix, IPv4, IPv6 and netlink routes only") {
    for (const int family : {1, 2, 10, 16})
        CHECK_FALSE(refused_when("socket", 0, static_cast<std::uint64_t>(family)));
    for (const int family : {0, 3, 15, 17 /*packet*/, 38 /*alg*/, 40 /*vsock*/, 44 /*xdp*/, 63})
        CHECK(refused_when("socket", 0, static_cast<std::uint64_t>(family)));
    CHECK(refused_when("socketpair", 0, 16));
    CHECK_FALSE(refused_when("socketpair", 0, 1));
    const bool netlink_protocols = std::any_of(rules().begin(), rules().end(), [](const auto& r) {
        return r.name == "socket" && r.when.size() == 2 && r.when[0].value == 16 &&
               r.when[1].index == 2 && r.when[1].at_least && r.when[1].value == 1;
    });
    CHECK(netlink_protocols);
}

TEST_CASE("seccomp: terminal injection and takeover") {
    CHECK(refused_when("ioctl", 1, 0x5412)); // TIOCSTI
    CHECK(refused_when("ioctl", 1, 0x541C)); // TIOCLINUX
    CHECK(refused_when("ioctl", 1, 0x540E)); // TIOCSCTTY
}

TEST_CASE("seccomp: the exec's helper and the agent cannot be signalled, limited or opened") {
    for (const std::int64_t target : {7, -7, 2, -2, -1})
        CHECK(refused_when("kill", 0, static_cast<std::uint64_t>(target)));
    for (const char* name : {"tkill", "tgkill", "pidfd_open", "prlimit64", "rt_sigqueueinfo"}) {
        CHECK(refused_when(name, 0, 7));
        CHECK(refused_when(name, 0, 2));
        CHECK_FALSE(refused_when(name, 0, 8));
    }
}
