#include "config/descriptor_budget.hpp"

#include <sys/resource.h>

namespace osf::config {

std::size_t connections_within(std::uint64_t descriptors) {
    if (descriptors <= kReservedDescriptors + 2) return 1;
    return static_cast<std::size_t>((descriptors - kReservedDescriptors) / 2);
}

std::uint64_t raise_descriptor_limit() {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
    if (limit.rlim_cur != limit.rlim_max) {
        rlimit raised = limit;
        raised.rlim_cur = limit.rlim_max;
        if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
    }
    return limit.rlim_cur == RLIM_INFINITY ? UINT64_MAX
                                           : static_cast<std::uint64_t>(limit.rlim_cur);
}

} // namespace osf::config
