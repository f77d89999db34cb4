// Starting the supervisor's children (the proxy, bwrap): fork and exec with
// everything prepared before the fork, killed by the kernel when the
// supervisor dies (PR_SET_PDEATHSIG), output appended to a file.
#pragma once

#include <string>
#include <vector>

namespace osf::backends::local {

struct ChildSpec {
    std::vector<std::string> argv; // argv[0] is looked up in PATH when it has no '/'
    std::vector<std::string> envp; // the child's whole environment
    std::string output_path;       // stdout and stderr, appended; /dev/null when empty
    std::vector<int> keep_fds;     // descriptors the child keeps (not close-on-exec)
    bool die_with_parent = true;
};

// Returns the child's PID; throws std::runtime_error when fork fails. An exec
// failure is the child's exit code 127 with a line in the output file.
int start_child(const ChildSpec& spec);

// The first executable `name` in `path_list` (colon-separated), or "".
std::string find_in_path(const std::string& name, const std::string& path_list);

} // namespace osf::backends::local
