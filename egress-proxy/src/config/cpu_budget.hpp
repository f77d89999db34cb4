// How many CPUs the proxy may use: the ones it is allowed to run on, fewer
// when its cgroup has a CPU quota (a container's CPU limit). For `--threads 0`;
// the default is one worker thread (see egress-proxy/README.md).
#pragma once

#include <string_view>

namespace osf {

// CPUs within a cgroup v2 `cpu.max` quota ("max 100000", "150000 100000"):
// the quota rounded up, at most `cpus`, at least 1. Text it cannot read
// leaves `cpus` as it is.
unsigned cpus_within_quota(std::string_view cpu_max, unsigned cpus);

// The CPUs this process may run on (its affinity mask), within the quota of
// its cgroup (/sys/fs/cgroup/cpu.max) when there is one. At least 1.
unsigned usable_cpus();

} // namespace osf
