#include "local/host/proxy_binary.hpp"

#include "process/spawn.hpp"

#include <filesystem>
#include <stdexcept>
#include <unistd.h>

namespace osf::local {

std::string find_proxy_binary(const sandbox::EnvLookup& getenv) {
    if (auto explicit_path = getenv("OSF_EGRESS_PROXY_BIN");
        explicit_path && !explicit_path->empty())
        return *explicit_path;
    std::error_code error;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (!error) {
        const auto dir = self.parent_path();
        for (const auto& candidate :
             {dir / "egress-proxy", dir.parent_path() / "egress-proxy" / "egress-proxy"})
            if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
    const auto path = getenv("PATH");
    const std::string found =
        process::find_in_path("egress-proxy", path ? *path : "/usr/local/bin:/usr/bin");
    if (found.empty())
        throw std::runtime_error(
            "no egress-proxy found: set OSF_EGRESS_PROXY_BIN or put it in PATH");
    return found;
}

} // namespace osf::local
