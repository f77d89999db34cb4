// The filter built from seccomp_policy with libseccomp, loaded into a real
// child process: what it refuses fails with EPERM and the process goes on;
// what programs need still works.
#include "local/agent/seccomp_filter.hpp"

#include <catch2/catch.hpp>
#include <cerrno>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace osf::local;
using namespace osf::local::agent;

namespace {

// Runs `probe` in a child under the filter; its exit status.
int under_filter(int (*probe)()) {
    const SeccompProgram filter = SeccompFilter(sandbox_syscall_rules()).program();
    const SeccompProgram protection = SeccompFilter(protection_rules({1, 1})).program();
    const pid_t pid = ::fork();
    if (pid == 0) {
        if (filter.load() != 0 || protection.load() != 0) ::_exit(100);
        ::_exit(probe());
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 200;
}

} // namespace

TEST_CASE("seccomp filter: refused calls fail with EPERM, allowed ones work") {
    CHECK(under_filter([] {
              const int vsock = ::socket(40 /*AF_VSOCK*/, SOCK_STREAM, 0);
              return vsock < 0 && errno == EPERM ? 0 : 1;
          }) == 0);
    // bits above the int's 32 do not dodge the rule
    CHECK(under_filter([] {
              const long fd =
                  ::syscall(SYS_socket, 0x100000000L | 38 /*AF_ALG*/, SOCK_SEQPACKET, 0);
              return fd < 0 && errno == EPERM ? 0 : 1;
          }) == 0);
    CHECK(under_filter([] {
              const long fd = ::syscall(425 /*io_uring_setup*/, 8, nullptr);
              return fd < 0 && errno == EPERM ? 0 : 1;
          }) == 0);
    CHECK(under_filter([] {
              const long result = ::syscall(SYS_keyctl, 0, -3, 0);
              return result < 0 && errno == EPERM ? 0 : 1;
          }) == 0);
    CHECK(under_filter([] {
              char c = 'x';
              return ::ioctl(0, TIOCSTI, &c) < 0 && errno == EPERM ? 0 : 1;
          }) == 0);
    CHECK(under_filter([] {
              const int unix_socket = ::socket(AF_UNIX, SOCK_STREAM, 0);
              const int inet = ::socket(AF_INET6, SOCK_STREAM, 0);
              const int route = ::socket(AF_NETLINK, SOCK_RAW, 0);
              return unix_socket >= 0 && inet >= 0 && route >= 0 ? 0 : 1;
          }) == 0);
    CHECK(under_filter([] { return ::kill(1, 0) < 0 && errno == EPERM ? 0 : 1; }) == 0);
}

TEST_CASE("seccomp filter: its readable form names the refused calls") {
    const SeccompFilter filter(sandbox_syscall_rules());
    const std::string text = filter.describe();
    for (const char* name : {"keyctl", "io_uring_setup", "ptrace", "socket", "ioctl"})
        CHECK(text.find(name) != std::string::npos);
}

TEST_CASE("seccomp filter: the compiled program fits the kernel's limit") {
    const SeccompProgram program = SeccompFilter(sandbox_syscall_rules()).program();
    CHECK(program.code.size() > 100);
    CHECK(program.code.size() <= BPF_MAXINSNS);
}
