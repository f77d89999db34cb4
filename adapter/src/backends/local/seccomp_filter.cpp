#include "backends/local/seccomp_filter.hpp"

#include <cerrno>
#include <cstring>
#include <seccomp.h>
#include <stdexcept>
#include <sys/mman.h>
#include <unistd.h>

namespace osf::backends::local {

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
            if (match.at_least)
                comparisons.push_back(SCMP_CMP(match.index, SCMP_CMP_GE, match.value));
            else
                comparisons.push_back(
                    SCMP_CMP(match.index, SCMP_CMP_MASKED_EQ, match.mask, match.value));
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

int SeccompFilter::load() const {
    const int result = seccomp_load(static_cast<scmp_filter_ctx>(context_));
    return result < 0 ? -result : 0;
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

} // namespace osf::backends::local
