// The system call filter of seccomp_policy, built with libseccomp for the
// machine's native ABI and its 32-bit ones (a 32-bit program meets the same
// rules) and compiled to BPF; the command's process loads the programs just
// before it runs the command.
#pragma once

#include "local/launch/seccomp_policy.hpp"

#include <linux/filter.h>
#include <string>
#include <vector>

namespace osf::local::agent {

// A compiled filter: loading it is two system calls, fit for the child of a
// fork (libseccomp's own load compiles again, some 25 ms for these rules).
struct SeccompProgram {
    std::vector<sock_filter> code;
    // Sets no_new_privs and adds the program to the calling process's
    // filters: 0, or the errno of the failure.
    int load() const;
};

class SeccompFilter {
public:
    // Throws std::runtime_error naming the rule libseccomp refused.
    explicit SeccompFilter(const std::vector<SyscallRule>& rules);
    SeccompFilter(const SeccompFilter&) = delete;
    SeccompFilter& operator=(const SeccompFilter&) = delete;
    ~SeccompFilter();

    // The filter compiled to BPF. Throws std::runtime_error.
    SeccompProgram program() const;

    // The filter in libseccomp's readable form (for tests and --dry-run).
    std::string describe() const;

private:
    void* context_ = nullptr;
};

} // namespace osf::local::agent
