#include "local/agent/seccomp_filter.hpp"

#include <cerrno>
#include <cstring>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdexcept>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace osf::local::agent {

namespace {

void check(int result, const std::string& what) {
    if (result < 0) throw std::runtime_error("seccomp: " + what + ": " + std::strerror(-result));
}

} // namespace

SeccompFilter::SeccompFilter(const std::vector<SyscallRule>& rules) {
    scmp_filter_ctx context = seccomp_init(SCMP_ACT_ALLOW);
    if (context == nullptr) throw std::runtime_error("seccomp: cannot make a filter");
    context_ = context;
    // The same rules for the 32-bit ABIs a 64-bit kernel also runs.
    for (const std::uint32_t arch : {SCMP_ARCH_X86, SCMP_ARCH_X32}) {
        if (seccomp_arch_native() != SCMP_ARCH_X86_64) break;
        check(seccomp_arch_add(context, arch), "adding an architecture");
    }
    for (const auto& rule : rules) {
        const int number = seccomp_syscall_resolve_name(rule.name.c_str());
        if (number == __NR_SCMP_ERROR) continue; // not on this architecture
        std::vector<scmp_arg_cmp> comparisons;
        for (const auto& match : rule.when) {
            // What SCMP_CMP builds, without its C compound literal (not C++).
            const auto index = static_cast<unsigned>(match.index);
            if (match.at_least)
                comparisons.push_back(
                    {.arg = index, .op = SCMP_CMP_GE, .datum_a = match.value, .datum_b = 0});
            else
                comparisons.push_back({.arg = index,
                                       .op = SCMP_CMP_MASKED_EQ,
                                       .datum_a = match.mask,
                                       .datum_b = match.value});
        }
        const int result =
            seccomp_rule_add_array(context, SCMP_ACT_ERRNO(static_cast<std::uint16_t>(rule.error)),
                                   number, static_cast<unsigned>(comparisons.size()),
                                   comparisons.empty() ? nullptr : comparisons.data());
        // -EOPNOTSUPP: a 32-bit ABI cannot express the rule (socketcall multiplexing).
        if (result == -EOPNOTSUPP) continue;
        check(result, "rule for " + rule.name);
    }
}

SeccompFilter::~SeccompFilter() {
    seccomp_release(static_cast<scmp_filter_ctx>(context_));
}

SeccompProgram SeccompFilter::program() const {
    const int fd = ::memfd_create("seccomp-bpf", MFD_CLOEXEC);
    if (fd < 0) throw std::runtime_error(std::string("seccomp: memfd: ") + std::strerror(errno));
    std::string bytes;
    const int exported = seccomp_export_bpf(static_cast<scmp_filter_ctx>(context_), fd);
    if (exported == 0) {
        ::lseek(fd, 0, SEEK_SET);
        char buffer[4096];
        ssize_t got;
        while ((got = ::read(fd, buffer, sizeof(buffer))) > 0)
            bytes.append(buffer, static_cast<std::size_t>(got));
    }
    ::close(fd);
    check(exported, "exporting the filter");
    SeccompProgram program;
    program.code.resize(bytes.size() / sizeof(sock_filter));
    std::memcpy(program.code.data(), bytes.data(), program.code.size() * sizeof(sock_filter));
    return program;
}

int SeccompProgram::load() const {
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
    const sock_fprog program{static_cast<unsigned short>(code.size()),
                             const_cast<sock_filter*>(code.data())};
    if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0) return errno;
    return 0;
}

std::string SeccompFilter::describe() const {
    const int fd = ::memfd_create("seccomp", MFD_CLOEXEC);
    if (fd < 0) return "";
    std::string text;
    if (seccomp_export_pfc(static_cast<scmp_filter_ctx>(context_), fd) == 0) {
        ::lseek(fd, 0, SEEK_SET);
        char buffer[4096];
        ssize_t got;
        while ((got = ::read(fd, buffer, sizeof(buffer))) > 0)
            text.append(buffer, static_cast<std::size_t>(got));
    }
    ::close(fd);
    return text;
}

} // namespace osf::local::agent
