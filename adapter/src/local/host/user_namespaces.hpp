// Whether this machine lets the caller create the user namespace bwrap
// needs, and what to say when it does not. Pure: the caller reads the sysctls.
#pragma once

#include <optional>
#include <string>

namespace osf::local {

struct NamespaceSysctls {
    std::optional<std::string>
        unprivileged_userns_clone;                  // kernel.unprivileged_userns_clone (Debian)
    std::optional<std::string> max_user_namespaces; // user.max_user_namespaces
};

// The one-line reason sandboxes cannot run here, or nullopt. Root's too need
// unprivileged user namespaces: their bwrap runs as the sandbox's host id.
std::optional<std::string> user_namespace_problem(bool is_root, const NamespaceSysctls& sysctls);

// create's message for bwrap's last line of output when it failed to start.
std::string describe_bwrap_failure(const std::string& line);

} // namespace osf::local
