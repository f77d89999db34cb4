#include "local/host/user_namespaces.hpp"

namespace osf::local {

namespace {

std::string trimmed(const std::optional<std::string>& value) {
    if (!value) return "";
    std::string text = *value;
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    return text;
}

constexpr const char* kAdvice = "allow them";

} // namespace

std::optional<std::string> user_namespace_problem(bool is_root, const NamespaceSysctls& sysctls) {
    // Root's sandboxes too: their bwrap runs as a host id of their own.
    const std::string advice = is_root ? "root's sandboxes run bwrap as an unprivileged host id "
                                         "of their own, which needs them; allow them"
                                       : "allow them";
    if (trimmed(sysctls.unprivileged_userns_clone) == "0")
        return "unprivileged user namespaces are not allowed here "
               "(kernel.unprivileged_userns_clone=0): " +
               advice + " (sysctl kernel.unprivileged_userns_clone=1)";
    if (trimmed(sysctls.max_user_namespaces) == "0")
        return "user namespaces are disabled here (user.max_user_namespaces=0): " + advice +
               " (sysctl user.max_user_namespaces=15000)";
    return std::nullopt;
}

std::string describe_bwrap_failure(const std::string& line) {
    const bool namespaces =
        line.find("namespace") != std::string::npos || line.find("uid map") != std::string::npos;
    const bool refused = line.find("ermission") != std::string::npos ||
                         line.find("not permitted") != std::string::npos;
    if (namespaces && refused)
        return "bwrap cannot create the sandbox's namespaces (" + line +
               "): unprivileged user namespaces are not allowed here; " + kAdvice +
               " (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu "
               "kernel.apparmor_restrict_unprivileged_userns=0)";
    if (line.find("Failed to make / slave") != std::string::npos)
        return "bwrap failed (" + line +
               "): / is not a mount point, as in a chroot; bind-mount the chroot's root onto "
               "itself first (mount --bind DIR DIR)";
    // --disable-userns came with bubblewrap 0.8 (Debian 12); Debian 11 has 0.4.
    if (line.find("Unknown option") != std::string::npos)
        return "bwrap failed (" + line +
               "): this bubblewrap is too old; sandbox-local needs bubblewrap 0.8 or newer "
               "(Debian 12's)";
    return "bwrap failed: " + line;
}

} // namespace osf::local
