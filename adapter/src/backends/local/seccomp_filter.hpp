// The system call filter of seccomp_policy, built with libseccomp for the
// machine's native ABI and its 32-bit ones (a 32-bit program meets the same
// rules), then loaded by the command's process just before it runs the
// command. Built in a process without other threads, loaded after fork.
#pragma once

#include "backends/local/seccomp_policy.hpp"

#include <string>

namespace osf::backends::local {

class SeccompFilter {
public:
    // Throws std::runtime_error naming the rule libseccomp refused.
    explicit SeccompFilter(const std::vector<SyscallRule>& rules);
    SeccompFilter(const SeccompFilter&) = delete;
    SeccompFilter& operator=(const SeccompFilter&) = delete;
    ~SeccompFilter();

    // Sets no_new_privs and loads the filter into the calling process: 0, or
    // the errno of the failure.
    int load() const;

    // The filter in libseccomp's readable form (for tests and --dry-run).
    std::string describe() const;

private:
    void* context_ = nullptr;
};

} // namespace osf::backends::local
